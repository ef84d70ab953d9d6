import ClawpairCore

extension DevicePublicKey {
    /// Writes the key as PEM (`pem`) to `path` with mode 0644, atomically: a public key is no
    /// secret. An existing file is replaced only when `replacing` is true, else
    /// ``IdentityError/alreadyExists(path:)``.
    public func writePEM(to path: String, replacing: Bool) throws(IdentityError) {
        do {
            try AtomicFile.write(Array(pem.utf8), to: path, mode: 0o644, replacing: replacing)
        } catch {
            if case let .exists(existing) = error { throw .alreadyExists(path: existing) }
            throw .file(error)
        }
    }
}
