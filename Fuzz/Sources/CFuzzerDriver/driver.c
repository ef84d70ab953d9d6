// Declarations only; the definition comes from libFuzzer (-sanitize=fuzzer).
