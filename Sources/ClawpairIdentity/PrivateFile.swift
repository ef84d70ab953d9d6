/// Reading private files that are not key files (the gateway registry's records, which hold
/// device tokens) with the key-file rules: opened with `O_NOFOLLOW|O_NONBLOCK` (a symbolic
/// link is refused, a FIFO never blocks), a regular file, no group/other permission bits (refused
/// with the `chmod 600` fix, as ssh refuses such keys), at most `limit` bytes.
public enum PrivateFile {
    /// The bytes of `path` after the key-file checks. Fails with
    /// ``IdentityError/symlink(path:)``, ``IdentityError/notARegularFile(path:)``,
    /// ``IdentityError/unsafePermissions(path:mode:)``, ``IdentityError/malformed(path:_:)``
    /// (`tooLarge`), ``IdentityError/noIdentity(path:)`` when it does not exist, or
    /// ``IdentityError/system(_:)``.
    public static func read(path: String, limit: Int) throws(IdentityError) -> [UInt8] {
        let (secure, _) = try SecretFile.read(path: path, limit: limit)
        return secure.copyBytes()
    }
}
