// Placeholder until the module has tests.
