#include "CImageShimsZBar.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The zbar functions clawpair calls, resolved by CImageShims_zbar_load. Each pointer has the
// type of the function it holds (typeof of the declaration in <zbar.h>), so a signature
// mismatch is a compile error.
static struct {
    __typeof__(zbar_image_scanner_create) *image_scanner_create;
    __typeof__(zbar_image_scanner_destroy) *image_scanner_destroy;
    __typeof__(zbar_image_scanner_set_config) *image_scanner_set_config;
    __typeof__(zbar_image_create) *image_create;
    __typeof__(zbar_image_destroy) *image_destroy;
    __typeof__(zbar_image_set_format) *image_set_format;
    __typeof__(zbar_image_set_size) *image_set_size;
    __typeof__(zbar_image_set_data) *image_set_data;
    __typeof__(zbar_scan_image) *scan_image;
    __typeof__(zbar_image_first_symbol) *image_first_symbol;
    __typeof__(zbar_symbol_next) *symbol_next;
    __typeof__(zbar_symbol_get_type) *symbol_get_type;
    __typeof__(zbar_symbol_get_data) *symbol_get_data;
    __typeof__(zbar_symbol_get_data_length) *symbol_get_data_length;
} zbar;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

#define RESOLVE(field, name) \
    if ((zbar.field = (__typeof__(name) *)dlsym(library, #name)) == NULL) { \
        snprintf(load_error, sizeof load_error, "libzbar.so.0 lacks %s", #name); \
        return; \
    }

static void load(void) {
    // The library stays loaded for the life of the process (never dlclose'd).
    void *library = dlopen("libzbar.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason != NULL ? reason : "dlopen(libzbar.so.0) failed");
        return;
    }
    RESOLVE(image_scanner_create, zbar_image_scanner_create)
    RESOLVE(image_scanner_destroy, zbar_image_scanner_destroy)
    RESOLVE(image_scanner_set_config, zbar_image_scanner_set_config)
    RESOLVE(image_create, zbar_image_create)
    RESOLVE(image_destroy, zbar_image_destroy)
    RESOLVE(image_set_format, zbar_image_set_format)
    RESOLVE(image_set_size, zbar_image_set_size)
    RESOLVE(image_set_data, zbar_image_set_data)
    RESOLVE(scan_image, zbar_scan_image)
    RESOLVE(image_first_symbol, zbar_image_first_symbol)
    RESOLVE(symbol_next, zbar_symbol_next)
    RESOLVE(symbol_get_type, zbar_symbol_get_type)
    RESOLVE(symbol_get_data, zbar_symbol_get_data)
    RESOLVE(symbol_get_data_length, zbar_symbol_get_data_length)
    load_status = 0;
}

int CImageShims_zbar_load(void) {
    if (pthread_once(&load_once, load) != 0) return -1;
    return load_status;
}

const char *CImageShims_zbar_load_error(void) {
    return load_error;
}

zbar_image_scanner_t *CImageShims_zbar_image_scanner_create(void) {
    return zbar.image_scanner_create();
}

void CImageShims_zbar_image_scanner_destroy(zbar_image_scanner_t *scanner) {
    zbar.image_scanner_destroy(scanner);
}

int CImageShims_zbar_image_scanner_set_config(zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology,
                                              zbar_config_t config, int value) {
    return zbar.image_scanner_set_config(scanner, symbology, config, value);
}

zbar_image_t *CImageShims_zbar_image_create(void) {
    return zbar.image_create();
}

void CImageShims_zbar_image_destroy(zbar_image_t *image) {
    zbar.image_destroy(image);
}

void CImageShims_zbar_image_set_format(zbar_image_t *image, unsigned long format) {
    zbar.image_set_format(image, format);
}

void CImageShims_zbar_image_set_size(zbar_image_t *image, unsigned width, unsigned height) {
    zbar.image_set_size(image, width, height);
}

void CImageShims_zbar_image_set_data(zbar_image_t *image, const void *data, unsigned long length,
                                     zbar_image_cleanup_handler_t *cleanup) {
    zbar.image_set_data(image, data, length, cleanup);
}

int CImageShims_zbar_scan_image(zbar_image_scanner_t *scanner, zbar_image_t *image) {
    return zbar.scan_image(scanner, image);
}

const zbar_symbol_t *CImageShims_zbar_image_first_symbol(const zbar_image_t *image) {
    return zbar.image_first_symbol(image);
}

const zbar_symbol_t *CImageShims_zbar_symbol_next(const zbar_symbol_t *symbol) {
    return zbar.symbol_next(symbol);
}

zbar_symbol_type_t CImageShims_zbar_symbol_get_type(const zbar_symbol_t *symbol) {
    return zbar.symbol_get_type(symbol);
}

const char *CImageShims_zbar_symbol_get_data(const zbar_symbol_t *symbol) {
    return zbar.symbol_get_data(symbol);
}

unsigned int CImageShims_zbar_symbol_get_data_length(const zbar_symbol_t *symbol) {
    return zbar.symbol_get_data_length(symbol);
}
