#include "CImageShimsPNG.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CImageShims_PNGWriter {
    png_structp png;
    png_infop info;
    jmp_buf jump;               // set by each forwarder before its libpng call
    unsigned char *output;      // malloc'ed, grows by doubling up to max_bytes
    size_t size;
    size_t capacity;
    size_t max_bytes;
    char message[128];
};

// error_fn: keep libpng's message and return to the forwarder's setjmp.
static void on_error(png_structp png, png_const_charp message) {
    CImageShims_PNGWriter *writer = png_get_error_ptr(png);
    snprintf(writer->message, sizeof writer->message, "%s", message != NULL ? message : "libpng failed");
    longjmp(writer->jump, 1);
}

// warning_fn: never print (the default writes to stderr). libpng warns only about settings
// it adjusted, which the caller chose.
static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

// write_data_fn: append to the output buffer, doubling it; past max_bytes is a fatal error.
static void on_write(png_structp png, png_bytep data, size_t length) {
    CImageShims_PNGWriter *writer = png_get_io_ptr(png);
    if (length > writer->max_bytes - writer->size) png_error(png, "the PNG would exceed its size limit");
    if (writer->size + length > writer->capacity) {
        size_t capacity = writer->capacity;
        while (capacity < writer->size + length) capacity = capacity > writer->max_bytes / 2 ? writer->max_bytes : capacity * 2;
        unsigned char *grown = realloc(writer->output, capacity);
        if (grown == NULL) png_error(png, "out of memory for the PNG output");
        writer->output = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->output + writer->size, data, length);
    writer->size += length;
}

// output_flush_fn: nothing to flush in memory.
static void on_flush(png_structp png) {
    (void)png;
}

CImageShims_PNGWriter *CImageShims_png_create_write_struct(size_t max_bytes) {
    CImageShims_PNGWriter *writer = calloc(1, sizeof *writer);
    if (writer == NULL) return NULL;
    writer->max_bytes = max_bytes;
    writer->capacity = max_bytes < 4096 ? max_bytes : 4096;
    writer->output = malloc(writer->capacity > 0 ? writer->capacity : 1);
    if (writer->output == NULL) {
        free(writer);
        return NULL;
    }
    // png_create_write_struct reports its own failures through on_error too.
    if (setjmp(writer->jump) != 0) {
        png_destroy_write_struct(&writer->png, &writer->info);
        free(writer->output);
        free(writer);
        return NULL;
    }
    writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, writer, on_error, on_warning);
    if (writer->png == NULL) longjmp(writer->jump, 1);
    writer->info = png_create_info_struct(writer->png);
    if (writer->info == NULL) longjmp(writer->jump, 1);
    png_set_write_fn(writer->png, writer, on_write, on_flush);
    return writer;
}

void CImageShims_png_destroy_write_struct(CImageShims_PNGWriter *writer) {
    if (writer == NULL) return;
    png_destroy_write_struct(&writer->png, &writer->info);
    free(writer->output);
    free(writer);
}

int CImageShims_png_set_IHDR(CImageShims_PNGWriter *writer, png_uint_32 width, png_uint_32 height,
                             int bit_depth, int color_type) {
    if (setjmp(writer->jump) != 0) return -1;
    png_set_IHDR(writer->png, writer->info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    return 0;
}

int CImageShims_png_set_PLTE(CImageShims_PNGWriter *writer, const png_color *palette, int count) {
    if (setjmp(writer->jump) != 0) return -1;
    png_set_PLTE(writer->png, writer->info, palette, count);
    return 0;
}

int CImageShims_png_set_filter(CImageShims_PNGWriter *writer, int filters) {
    if (setjmp(writer->jump) != 0) return -1;
    png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, filters);
    return 0;
}

int CImageShims_png_set_compression_level(CImageShims_PNGWriter *writer, int level) {
    if (setjmp(writer->jump) != 0) return -1;
    png_set_compression_level(writer->png, level);
    return 0;
}

int CImageShims_png_set_compression_mem_level(CImageShims_PNGWriter *writer, int mem_level) {
    if (setjmp(writer->jump) != 0) return -1;
    png_set_compression_mem_level(writer->png, mem_level);
    return 0;
}

int CImageShims_png_set_compression_window_bits(CImageShims_PNGWriter *writer, int window_bits) {
    if (setjmp(writer->jump) != 0) return -1;
    png_set_compression_window_bits(writer->png, window_bits);
    return 0;
}

int CImageShims_png_write_info(CImageShims_PNGWriter *writer) {
    if (setjmp(writer->jump) != 0) return -1;
    png_write_info(writer->png, writer->info);
    return 0;
}

int CImageShims_png_write_row(CImageShims_PNGWriter *writer, const unsigned char *row) {
    if (setjmp(writer->jump) != 0) return -1;
    png_write_row(writer->png, row);
    return 0;
}

int CImageShims_png_write_end(CImageShims_PNGWriter *writer) {
    if (setjmp(writer->jump) != 0) return -1;
    png_write_end(writer->png, writer->info);
    return 0;
}

const unsigned char *CImageShims_png_output(const CImageShims_PNGWriter *writer, size_t *size) {
    *size = writer->size;
    return writer->output;
}

const char *CImageShims_png_message(const CImageShims_PNGWriter *writer) {
    return writer->message;
}
