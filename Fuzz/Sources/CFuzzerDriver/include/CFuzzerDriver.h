#pragma once
// libFuzzer's documented entry point for programs that own main() (compiler-rt
// FuzzerInterface.h). SwiftPM links executables with main aliased to <Module>_main, so each
// target defines that symbol and hands control to libFuzzer through this call.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
