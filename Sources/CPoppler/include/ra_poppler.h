// A table of the Poppler (GLib binding) and GLib functions RunAnywhere calls to read PDF files'
// text, filled by dlopen/dlsym (see ra_engine.h). Their declarations are the package's own, in
// ra_poppler_declarations.h, so no Poppler is needed to build. The GLib functions are looked up
// through libpoppler-glib's handle, which reaches the GLib it was linked with.
#ifndef RA_POPPLER_H
#define RA_POPPLER_H

#include "ra_poppler_declarations.h"
#include "ra_engine.h"
#include <stddef.h>

#define RA_POPPLER_FUNCTIONS(X)         \
    X(g_bytes_new)                      \
    X(g_bytes_unref)                    \
    X(g_error_free)                     \
    X(g_free)                           \
    X(g_object_unref)                   \
    X(poppler_error_quark)              \
    X(poppler_get_version)              \
    X(poppler_document_new_from_bytes)  \
    X(poppler_document_get_n_pages)     \
    X(poppler_document_get_page)        \
    X(poppler_page_get_text)

/// Function pointers into one dlopen'ed libpoppler-glib (and the GLib it links).
typedef struct ra_poppler_api {
    RA_POPPLER_FUNCTIONS(RA_ENGINE_FIELD)
} ra_poppler_api;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL and fills `api`. Returns 0 on
/// success; otherwise writes a message to `error` and returns -1. Never closed.
int ra_poppler_api_load(const char * _Nonnull path, ra_poppler_api * _Nonnull api, char * _Nonnull error, size_t error_size);

#endif
