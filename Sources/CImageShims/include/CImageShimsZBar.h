#pragma once
// zbar, loaded on first use with dlopen("libzbar.so.0") instead of being linked (see
// CImageShims.h). Types and constants come from <zbar.h>; each call goes through a forwarder
// named CImageShims_<cfunc> with zbar's own signature, which calls the function dlsym found.
// Call CImageShims_zbar_load first: the forwarders must not be used unless it returned 0.
#include <stddef.h>
// Loaded with dlopen, so this target does not depend on CZBar (that would link the library):
// a missing header names the Debian package here instead, as CZBar's apt provider does.
#if !__has_include(<zbar.h>)
#error "zbar headers are missing: install the Debian package libzbar-dev (sudo apt-get install libzbar-dev; scripts/install-deps installs every one)"
#endif
#include <zbar.h>

/// Loads libzbar and resolves every function below, once per process (thread-safe).
/// Returns 0 on success; otherwise -1 with dlerror's text in CImageShims_zbar_load_error().
int CImageShims_zbar_load(void);

/// Why CImageShims_zbar_load failed ("" when it did not).
const char *CImageShims_zbar_load_error(void);

/// zbar_image_scanner_create().
zbar_image_scanner_t *CImageShims_zbar_image_scanner_create(void);

/// zbar_image_scanner_destroy(scanner).
void CImageShims_zbar_image_scanner_destroy(zbar_image_scanner_t *scanner);

/// zbar_image_scanner_set_config(scanner, symbology, config, value). Returns 0 on success.
int CImageShims_zbar_image_scanner_set_config(zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology,
                                              zbar_config_t config, int value);

/// zbar_image_create().
zbar_image_t *CImageShims_zbar_image_create(void);

/// zbar_image_destroy(image).
void CImageShims_zbar_image_destroy(zbar_image_t *image);

/// zbar_image_set_format(image, fourcc).
void CImageShims_zbar_image_set_format(zbar_image_t *image, unsigned long format);

/// zbar_image_set_size(image, width, height).
void CImageShims_zbar_image_set_size(zbar_image_t *image, unsigned width, unsigned height);

/// zbar_image_set_data(image, data, length, cleanup).
void CImageShims_zbar_image_set_data(zbar_image_t *image, const void *data, unsigned long length,
                                     zbar_image_cleanup_handler_t *cleanup);

/// zbar_scan_image(scanner, image). Returns the number of symbols found, or -1 on error.
int CImageShims_zbar_scan_image(zbar_image_scanner_t *scanner, zbar_image_t *image);

/// zbar_image_first_symbol(image).
const zbar_symbol_t *CImageShims_zbar_image_first_symbol(const zbar_image_t *image);

/// zbar_symbol_next(symbol).
const zbar_symbol_t *CImageShims_zbar_symbol_next(const zbar_symbol_t *symbol);

/// zbar_symbol_get_type(symbol).
zbar_symbol_type_t CImageShims_zbar_symbol_get_type(const zbar_symbol_t *symbol);

/// zbar_symbol_get_data(symbol).
const char *CImageShims_zbar_symbol_get_data(const zbar_symbol_t *symbol);

/// zbar_symbol_get_data_length(symbol).
unsigned int CImageShims_zbar_symbol_get_data_length(const zbar_symbol_t *symbol);
