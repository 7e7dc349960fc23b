// What every engine loader shares: opening a library privately and resolving its functions, and
// the macros that turn an engine's list of functions (an X-macro such as RA_LLAMA_FUNCTIONS)
// into its table and its loader.
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

/// Gives the memory freed since the last call back to the system (glibc's malloc_trim), after an
/// engine frees a model: otherwise the allocator keeps the peak of a long-running process.
void ra_engine_release_free_memory(void);

/// Lets glibc's malloc use at most `count` arenas (M_ARENA_MAX; by default up to 8 per core, one
/// per thread that allocates at once), so that freed engine buffers are not kept in many of them.
void ra_engine_limit_malloc_arenas(int count);

/// A table field for the function `name`, typed from its real declaration with __typeof__ so
/// that calls through the table are fully type-checked.
#define RA_ENGINE_FIELD(name) __typeof__(&name) _Nonnull name;

// For RA_ENGINE_LOADER: a function's name, and the table slot its address goes to.
#define RA_ENGINE_NAME(name) #name,
#define RA_ENGINE_SLOT(name) (void **)&table.name,

/// Defines `int loader(const char *path, type *api, char *error, size_t error_size)`, which
/// fills the table `type` with the functions in `FUNCTIONS` through ra_engine_open and leaves
/// `api` untouched when that fails.
#define RA_ENGINE_LOADER(loader, type, FUNCTIONS)                                         \
    int loader(const char *path, type *api, char *error, size_t error_size) {             \
        static const char *const names[] = {FUNCTIONS(RA_ENGINE_NAME)};                   \
        type table;                                                                       \
        void **const slots[] = {FUNCTIONS(RA_ENGINE_SLOT)};                               \
        size_t count = sizeof names / sizeof names[0];                                    \
        if (ra_engine_open(path, names, slots, count, error, error_size) != 0) return -1; \
        *api = table;                                                                     \
        return 0;                                                                         \
    }

#endif
