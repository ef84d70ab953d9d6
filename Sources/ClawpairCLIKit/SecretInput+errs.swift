extension SecretInput {
    /// Whether the command line names this secret (`--fileOption` or `--valueOption`), before
    /// anything is read; the environment does not count.
    public func isGiven(_ arguments: ParsedArguments) -> Bool {
        arguments.value(fileOption) != nil || arguments.value(valueOption) != nil
    }
}
