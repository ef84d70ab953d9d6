#include "CImageShimsJPEG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

struct CImageShims_JPEGDecoder {
    struct jpeg_decompress_struct info;
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;               // set by each forwarder before its libjpeg call
    unsigned max_scans;
    long warnings;
    int truncated;
    char message[JMSG_LENGTH_MAX];
};

static CImageShims_JPEGDecoder *decoder_of(j_common_ptr cinfo) {
    return (CImageShims_JPEGDecoder *)cinfo->client_data;
}

// error_exit: keep libjpeg's message and return to the forwarder's setjmp.
static void on_error_exit(j_common_ptr cinfo) {
    CImageShims_JPEGDecoder *decoder = decoder_of(cinfo);
    cinfo->err->format_message(cinfo, decoder->message);
    longjmp(decoder->jump, 1);
}

// emit_message: count warnings (level -1), keep the first one's text, drop trace messages.
static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    CImageShims_JPEGDecoder *decoder = decoder_of(cinfo);
    decoder->warnings += 1;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) decoder->truncated = 1;
    if (decoder->message[0] == '\0') cinfo->err->format_message(cinfo, decoder->message);
}

// output_message: never print (the default writes to stderr).
static void on_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

// progress_monitor: fail once a progressive image goes past the scan cap.
static void on_progress(j_common_ptr cinfo) {
    CImageShims_JPEGDecoder *decoder = decoder_of(cinfo);
    if (decoder->max_scans == 0 || !cinfo->is_decompressor) return;
    if (((j_decompress_ptr)cinfo)->input_scan_number > (int)decoder->max_scans) {
        snprintf(decoder->message, sizeof decoder->message,
                 "more than %u progressive scans", decoder->max_scans);
        longjmp(decoder->jump, 1);
    }
}

CImageShims_JPEGDecoder *CImageShims_jpeg_create_decompress(unsigned max_scans) {
    CImageShims_JPEGDecoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->max_scans = max_scans;
    decoder->info.err = jpeg_std_error(&decoder->error);
    decoder->error.error_exit = on_error_exit;
    decoder->error.emit_message = on_emit_message;
    decoder->error.output_message = on_output_message;
    decoder->info.client_data = decoder;
    if (setjmp(decoder->jump) != 0) {
        jpeg_destroy_decompress(&decoder->info);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    decoder->info.client_data = decoder;
    decoder->progress.progress_monitor = on_progress;
    decoder->info.progress = &decoder->progress;
    return decoder;
}

void CImageShims_jpeg_destroy_decompress(CImageShims_JPEGDecoder *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->info);
    free(decoder);
}

struct jpeg_decompress_struct *CImageShims_jpeg_info(CImageShims_JPEGDecoder *decoder) {
    return &decoder->info;
}

int CImageShims_jpeg_mem_src(CImageShims_JPEGDecoder *decoder, const unsigned char *data, unsigned long size) {
    if (setjmp(decoder->jump) != 0) return -1;
    jpeg_mem_src(&decoder->info, data, size);
    return 0;
}

int CImageShims_jpeg_read_header(CImageShims_JPEGDecoder *decoder) {
    if (setjmp(decoder->jump) != 0) return -1;
    return jpeg_read_header(&decoder->info, TRUE);
}

int CImageShims_jpeg_start_decompress(CImageShims_JPEGDecoder *decoder) {
    if (setjmp(decoder->jump) != 0) return -1;
    return jpeg_start_decompress(&decoder->info);
}

int CImageShims_jpeg_read_scanlines(CImageShims_JPEGDecoder *decoder, unsigned char **rows, unsigned max_lines) {
    if (setjmp(decoder->jump) != 0) return -1;
    return (int)jpeg_read_scanlines(&decoder->info, rows, max_lines);
}

int CImageShims_jpeg_finish_decompress(CImageShims_JPEGDecoder *decoder) {
    if (setjmp(decoder->jump) != 0) return -1;
    return jpeg_finish_decompress(&decoder->info);
}

const char *CImageShims_jpeg_message(const CImageShims_JPEGDecoder *decoder) {
    return decoder->message;
}

long CImageShims_jpeg_warning_count(const CImageShims_JPEGDecoder *decoder) {
    return decoder->warnings;
}

int CImageShims_jpeg_truncated(const CImageShims_JPEGDecoder *decoder) {
    return decoder->truncated;
}
