#pragma once
// libjpeg calls that may fail, each made inside its own setjmp.
//
// libjpeg reports a fatal error through `error_exit`, which must not return: the default
// calls exit(), and the documented alternative is longjmp back to the caller. A longjmp must
// never cross Swift frames, so every libjpeg call that can fail goes through a forwarder here
// that sets the jump point, makes the one call, and turns a fatal error into -1. The jump
// then crosses only libjpeg's own C frames. Warnings are counted, never printed.
//
// One commented forwarder per libjpeg call, named CImageShims_<cfunc>, plus the accessors
// for what the error manager recorded. After a forwarder returns -1 the decompressor may
// only be destroyed.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

/// A libjpeg decompressor whose error manager returns to the caller (opaque).
typedef struct CImageShims_JPEGDecoder CImageShims_JPEGDecoder;

/// Allocates a decoder and runs jpeg_create_decompress. Progressive images with more than
/// `max_scans` scans fail (0: no cap); huge scan counts are a known way to make libjpeg spin.
/// Returns NULL when memory runs out or libjpeg fails.
CImageShims_JPEGDecoder *CImageShims_jpeg_create_decompress(unsigned max_scans);

/// jpeg_destroy_decompress, then frees the decoder. NULL is ignored.
void CImageShims_jpeg_destroy_decompress(CImageShims_JPEGDecoder *decoder);

/// The decompress struct itself: header fields to read, output parameters to set.
struct jpeg_decompress_struct *CImageShims_jpeg_info(CImageShims_JPEGDecoder *decoder);

/// jpeg_mem_src(info, data, size). `data` must stay valid until the decoder is destroyed.
/// Returns 0, or -1 after a fatal error (an empty buffer is one).
int CImageShims_jpeg_mem_src(CImageShims_JPEGDecoder *decoder, const unsigned char *data, unsigned long size);

/// jpeg_read_header(info, TRUE). Returns its result (JPEG_HEADER_OK), or -1 after a fatal error.
int CImageShims_jpeg_read_header(CImageShims_JPEGDecoder *decoder);

/// jpeg_start_decompress(info). Returns its result (1 with a memory source), or -1 after a fatal error.
int CImageShims_jpeg_start_decompress(CImageShims_JPEGDecoder *decoder);

/// jpeg_read_scanlines(info, rows, max_lines). Returns the number of rows read, or -1 after a fatal error.
int CImageShims_jpeg_read_scanlines(CImageShims_JPEGDecoder *decoder, unsigned char **rows, unsigned max_lines);

/// jpeg_finish_decompress(info). Returns its result (1 with a memory source), or -1 after a fatal error.
int CImageShims_jpeg_finish_decompress(CImageShims_JPEGDecoder *decoder);

/// libjpeg's text for the fatal error that made the last call return -1, or else for the first
/// warning; "" when there was neither.
const char *CImageShims_jpeg_message(const CImageShims_JPEGDecoder *decoder);

/// How many warnings libjpeg reported (corrupt data it worked around).
long CImageShims_jpeg_warning_count(const CImageShims_JPEGDecoder *decoder);

/// 1 when libjpeg reported that the data ended early (JWRN_JPEG_EOF) and padded the rest, else 0.
int CImageShims_jpeg_truncated(const CImageShims_JPEGDecoder *decoder);
