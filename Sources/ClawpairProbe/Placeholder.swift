// Placeholder until the module has code.
