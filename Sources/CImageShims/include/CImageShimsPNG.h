#pragma once
// libpng's row-by-row writer, each call that may fail made inside its own setjmp.
//
// libpng's simplified png_image API (which ClawpairQR uses for reading) only writes 8-bit
// samples: a 1-bit QR image would first have to be spread out to one byte per pixel and
// packed back by libpng, which is most of the work of writing one. The progressive writer
// takes packed 1-bit rows as they are, but reports fatal errors by calling an error function
// that must not return. As in CImageShimsJPEG.h, that function longjmps back to the forwarder
// that made the call, so the jump crosses only libpng's own C frames, never Swift's.
//
// One commented forwarder per libpng call, named CImageShims_<cfunc>. The encoded file is
// collected in memory, up to a size cap. After a forwarder returns -1 the writer may only be
// destroyed.
#include <stddef.h>
#include <png.h>

/// A libpng writer with its info struct, error handler and in-memory output (opaque).
typedef struct CImageShims_PNGWriter CImageShims_PNGWriter;

/// png_create_write_struct and png_create_info_struct, output to memory (png_set_write_fn).
/// The output may grow to `max_bytes`; writing more is a fatal error. Warnings are ignored.
/// Returns NULL when memory runs out.
CImageShims_PNGWriter *CImageShims_png_create_write_struct(size_t max_bytes);

/// png_destroy_write_struct, then frees the writer and its output. NULL is ignored.
void CImageShims_png_destroy_write_struct(CImageShims_PNGWriter *writer);

/// png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
/// PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT). Returns 0, or -1 after a fatal error.
int CImageShims_png_set_IHDR(CImageShims_PNGWriter *writer, png_uint_32 width, png_uint_32 height,
                             int bit_depth, int color_type);

/// png_set_PLTE(png, info, palette, count). Returns 0, or -1 after a fatal error.
int CImageShims_png_set_PLTE(CImageShims_PNGWriter *writer, const png_color *palette, int count);

/// png_set_filter(png, PNG_FILTER_TYPE_BASE, filters). Returns 0, or -1 after a fatal error.
int CImageShims_png_set_filter(CImageShims_PNGWriter *writer, int filters);

/// png_set_compression_level(png, level): zlib's 0 to 9. Returns 0, or -1 after a fatal error.
int CImageShims_png_set_compression_level(CImageShims_PNGWriter *writer, int level);

/// png_set_compression_mem_level(png, mem_level): zlib's 1 to 9. Returns 0, or -1 after a fatal error.
int CImageShims_png_set_compression_mem_level(CImageShims_PNGWriter *writer, int mem_level);

/// png_set_compression_window_bits(png, window_bits): zlib's 8 to 15. Returns 0, or -1 after a fatal error.
int CImageShims_png_set_compression_window_bits(CImageShims_PNGWriter *writer, int window_bits);

/// png_write_info(png, info): the signature, IHDR and PLTE. Returns 0, or -1 after a fatal error.
int CImageShims_png_write_info(CImageShims_PNGWriter *writer);

/// png_write_row(png, row): one row, packed as the IHDR says. Returns 0, or -1 after a fatal error.
int CImageShims_png_write_row(CImageShims_PNGWriter *writer, const unsigned char *row);

/// png_write_end(png, info): the last IDAT data and IEND. Returns 0, or -1 after a fatal error.
int CImageShims_png_write_end(CImageShims_PNGWriter *writer);

/// The bytes written so far; their count is stored in `*size`. Owned by the writer.
const unsigned char *CImageShims_png_output(const CImageShims_PNGWriter *writer, size_t *size);

/// libpng's text for the fatal error that made the last call return -1; "" when there was none.
const char *CImageShims_png_message(const CImageShims_PNGWriter *writer);
