#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

enum { max_libraries = 4 };

int CLazyLibrary_open(const char *const *libraries, size_t library_count, const char *const *names,
                      void *const *slots, size_t count, char *error, size_t error_size) {
    void *handles[max_libraries];
    if (library_count == 0 || library_count > max_libraries) {
        snprintf(error, error_size, "CLazyLibrary_open: %zu libraries (1 to %d)", library_count, max_libraries);
        return -1;
    }
    for (size_t i = 0; i < library_count; i++) {
        if ((handles[i] = dlopen(libraries[i], RTLD_LAZY | RTLD_LOCAL)) == NULL) {
            const char *reason = dlerror();
            snprintf(error, error_size, "%s", reason != NULL ? reason : libraries[i]);
            return -1;
        }
    }
    for (size_t i = 0; i < count; i++) {
        void *symbol = NULL;
        for (size_t j = 0; j < library_count && symbol == NULL; j++) symbol = dlsym(handles[j], names[i]);
        if (symbol == NULL) {
            snprintf(error, error_size, "%s lacks %s", libraries[0], names[i]);
            return -1;
        }
        // POSIX: a data pointer from dlsym converts to a function pointer of the same size.
        memcpy(slots[i], &symbol, sizeof symbol);
    }
    return 0;
}
