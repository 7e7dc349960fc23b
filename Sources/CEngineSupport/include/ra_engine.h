// What every engine loader shares: opening a library privately and resolving its functions.
#ifndef RA_ENGINE_H
#define RA_ENGINE_H

#include <stddef.h>

/// Opens the library at `path` with dlopen(RTLD_NOW | RTLD_LOCAL) (its symbols stay private to
/// it) and stores the address of each of the `count` functions named in `names` through the
/// matching pointer in `slots`. Returns 0 on success; otherwise closes the library again,
/// writes the reason to `error` and returns -1. A library that loaded is never closed.
int ra_engine_open(const char * _Nonnull path, const char * _Nonnull const * _Nonnull names,
                   void * _Nullable * _Nonnull const * _Nonnull slots, size_t count,
                   char * _Nonnull error, size_t error_size);

#endif
