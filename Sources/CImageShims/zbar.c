#include "CImageShimsZBar.h"

#include <CLazyLibrary.h>
#include <pthread.h>

// The zbar functions clawpair calls, resolved by CImageShims_zbar_load (see CLazyLibrary.h).
#define ZBAR_FUNCTIONS(F) \
    F(zbar_image_scanner_create) F(zbar_image_scanner_destroy) F(zbar_image_scanner_set_config) F(zbar_image_create) \
    F(zbar_image_destroy) F(zbar_image_set_format) F(zbar_image_set_size) F(zbar_image_set_data) F(zbar_scan_image) \
    F(zbar_image_first_symbol) F(zbar_symbol_next) F(zbar_symbol_get_type) F(zbar_symbol_get_data) \
    F(zbar_symbol_get_data_length)

static struct {
    ZBAR_FUNCTIONS(CLAZY_FIELD)
} zbar;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

static void load(void) {
    static const char *const libraries[] = {"libzbar.so.0"};
    static const char *const names[] = {ZBAR_FUNCTIONS(CLAZY_NAME)};
#define SLOT(name) CLAZY_SLOT(zbar, name)
    void *const slots[] = {ZBAR_FUNCTIONS(SLOT)};
#undef SLOT
    load_status = CLazyLibrary_open(libraries, 1, names, slots, sizeof names / sizeof *names, load_error,
                                    sizeof load_error);
}

int CImageShims_zbar_load(void) {
    if (pthread_once(&load_once, load) != 0) return -1;
    return load_status;
}

const char *CImageShims_zbar_load_error(void) {
    return load_error;
}

zbar_image_scanner_t *CImageShims_zbar_image_scanner_create(void) {
    return zbar.zbar_image_scanner_create();
}

void CImageShims_zbar_image_scanner_destroy(zbar_image_scanner_t *scanner) {
    zbar.zbar_image_scanner_destroy(scanner);
}

int CImageShims_zbar_image_scanner_set_config(zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology,
                                              zbar_config_t config, int value) {
    return zbar.zbar_image_scanner_set_config(scanner, symbology, config, value);
}

zbar_image_t *CImageShims_zbar_image_create(void) {
    return zbar.zbar_image_create();
}

void CImageShims_zbar_image_destroy(zbar_image_t *image) {
    zbar.zbar_image_destroy(image);
}

void CImageShims_zbar_image_set_format(zbar_image_t *image, unsigned long format) {
    zbar.zbar_image_set_format(image, format);
}

void CImageShims_zbar_image_set_size(zbar_image_t *image, unsigned width, unsigned height) {
    zbar.zbar_image_set_size(image, width, height);
}

void CImageShims_zbar_image_set_data(zbar_image_t *image, const void *data, unsigned long length,
                                     zbar_image_cleanup_handler_t *cleanup) {
    zbar.zbar_image_set_data(image, data, length, cleanup);
}

int CImageShims_zbar_scan_image(zbar_image_scanner_t *scanner, zbar_image_t *image) {
    return zbar.zbar_scan_image(scanner, image);
}

const zbar_symbol_t *CImageShims_zbar_image_first_symbol(const zbar_image_t *image) {
    return zbar.zbar_image_first_symbol(image);
}

const zbar_symbol_t *CImageShims_zbar_symbol_next(const zbar_symbol_t *symbol) {
    return zbar.zbar_symbol_next(symbol);
}

zbar_symbol_type_t CImageShims_zbar_symbol_get_type(const zbar_symbol_t *symbol) {
    return zbar.zbar_symbol_get_type(symbol);
}

const char *CImageShims_zbar_symbol_get_data(const zbar_symbol_t *symbol) {
    return zbar.zbar_symbol_get_data(symbol);
}

unsigned int CImageShims_zbar_symbol_get_data_length(const zbar_symbol_t *symbol) {
    return zbar.zbar_symbol_get_data_length(symbol);
}
