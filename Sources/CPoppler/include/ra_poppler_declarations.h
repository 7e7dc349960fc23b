// The subset of GLib's and Poppler's GLib C API (poppler.h, poppler-document.h, poppler-page.h,
// as in Debian 12's libpoppler-glib-dev 22.12.0) that RunAnywhere calls to read a PDF's text:
// open a document from bytes, count its pages, get each page's text, and free what they return.
// Declared here, with the same names and types as the real headers, so the package builds without
// Poppler installed; the library itself is opened at run time (ra_poppler.h).
// scripts/check-declarations (run by the tests) checks every declaration below against the real
// headers.
#ifndef RA_POPPLER_DECLARATIONS_H
#define RA_POPPLER_DECLARATIONS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int gint;
typedef char gchar;
typedef unsigned int guint32;
typedef unsigned long gsize;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef guint32 GQuark;

/// An immutable byte buffer (GLib).
typedef struct _GBytes GBytes;

/// An error reported by a GLib function: its domain, code and message.
typedef struct _GError GError;
struct _GError {
    GQuark domain;
    gint code;
    gchar *message;
};

/// A PDF document and one of its pages (GObjects, released with g_object_unref).
typedef struct _PopplerDocument PopplerDocument;
typedef struct _PopplerPage PopplerPage;

/// The codes of the errors in POPPLER_ERROR's domain.
typedef enum {
    POPPLER_ERROR_INVALID,
    POPPLER_ERROR_ENCRYPTED,
    POPPLER_ERROR_OPEN_FILE,
    POPPLER_ERROR_BAD_CATALOG,
    POPPLER_ERROR_DAMAGED
} PopplerError;

GBytes *g_bytes_new(gconstpointer data, gsize size);
void g_bytes_unref(GBytes *bytes);
void g_error_free(GError *error);
void g_free(gpointer mem);
void g_object_unref(gpointer object);

GQuark poppler_error_quark(void);
const char *poppler_get_version(void);
PopplerDocument *poppler_document_new_from_bytes(GBytes *bytes, const char *password, GError **error);
int poppler_document_get_n_pages(PopplerDocument *document);
PopplerPage *poppler_document_get_page(PopplerDocument *document, int index);
char *poppler_page_get_text(PopplerPage *page);

#ifdef __cplusplus
}
#endif

#endif
