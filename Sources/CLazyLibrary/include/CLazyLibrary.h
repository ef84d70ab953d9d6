#pragma once
// Loading a C library with dlopen on first use instead of linking it, for the shims of
// libraries only some commands need (Avahi's client library, zbar, OpenSSL): a linked library costs
// every command start-up time. Each shim keeps a table of typed function pointers, declared
// from the library's own header with an X-macro list, and fills it with CLazyLibrary_open:
//
//     #define ZBAR_FUNCTIONS(F) F(zbar_image_create) F(zbar_scan_image)
//     static struct { ZBAR_FUNCTIONS(CLAZY_FIELD) } zbar;     // __typeof__(f) *f; per function
//     #define SLOT(name) CLAZY_SLOT(zbar, name)
//     static const char *const names[] = {ZBAR_FUNCTIONS(CLAZY_NAME)};
//     void *const slots[] = {ZBAR_FUNCTIONS(SLOT)};
//     CLazyLibrary_open(libraries, 1, names, slots, 2, error, sizeof error);
//
// A signature mismatch between a call and the library's declaration is then a compile error.
#include <stddef.h>

/// A typed function-pointer field for `name`, its name as a string, and the address of its field
/// in `table` (X-macro helpers; see above).
#define CLAZY_FIELD(name) __typeof__(name) *name;
#define CLAZY_NAME(name) #name,
#define CLAZY_SLOT(table, name) (void *)&(table).name,

/// Opens `libraries` in order (RTLD_LAZY | RTLD_LOCAL; they stay loaded for the life of the
/// process) and stores into the function pointer at `slots[i]` the symbol `names[i]` of the first
/// of them that defines it. Returns 0; or -1 with the reason (the missing library or symbol) in
/// `error`. Not synchronized: call it once, under pthread_once.
int CLazyLibrary_open(const char *const *libraries, size_t library_count, const char *const *names,
                      void *const *slots, size_t count, char *error, size_t error_size);
