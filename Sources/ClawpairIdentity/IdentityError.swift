import ClawpairCore

// Errors of the identity module, in two layers:
// - `IdentityFormatError`: pure decoding failures of key text, key files and token caches; no path,
//   one case (and one message) per check, in the order the checks run (minisign/signify style).
// - `IdentityError`: what a caller sees: a format error with the file it came from, unsafe
//   permissions, missing or existing files, I/O and libsodium failures.

/// Why key text, a signature, an identity file or a token cache could not be decoded.
public enum IdentityFormatError: ClawpairError, Equatable {
    /// The input is larger than the parser reads.
    case tooLarge(limit: Int)
    /// The input is not a JSON object: byte offset and what was wrong there.
    case invalidJSON(offset: Int, reason: String)
    /// A member appears twice in one object (which one counts is ambiguous).
    case duplicateField(String)
    /// A required member is missing.
    case missingField(String)
    /// A member has the wrong JSON type.
    case wrongType(field: String, expected: String)
    /// A text member that must be ASCII (keys, ids, PEM) holds something else.
    case notASCII(field: String)
    /// `version` is not one this toolkit reads.
    case unsupportedVersion(Int64)
    /// The object is neither the TS form (`publicKeyPem`) nor the Swift form (`publicKey`/`privateKey`).
    case unknownForm
    /// A PEM block does not start with `-----BEGIN <label>-----`.
    case pemMissingBegin(label: String)
    /// A PEM block has another label than the one required.
    case pemWrongLabel(expected: String, found: String)
    /// A PEM block does not end with `-----END <label>-----`.
    case pemMissingEnd(label: String)
    /// The PEM body is not base64 (encrypted PEM has headers and is refused here too).
    case pemBody(label: String)
    /// A DER structure has the wrong length.
    case derLength(what: String, expected: Int, actual: Int)
    /// A DER structure of the right length does not start with the Ed25519 prefix.
    case derPrefix(what: String)
    /// A text member is not base64 in any accepted spelling.
    case base64(field: String)
    /// Decoded key or signature bytes have the wrong length.
    case length(field: String, expected: Int, actual: Int)
    /// The stored public key is not the one the private key derives.
    case publicKeyMismatch
    /// A `signedAtMs`-like number is negative or not an integer.
    case invalidTimestamp(field: String)

    /// One sentence naming the failed check.
    public var message: String {
        switch self {
        case let .tooLarge(limit): return "larger than \(limit) bytes"
        case let .invalidJSON(offset, reason): return "not valid JSON (byte \(offset): \(reason))"
        case let .duplicateField(name): return "member \"\(name)\" appears more than once"
        case let .missingField(name): return "member \"\(name)\" is missing"
        case let .wrongType(field, expected): return "member \"\(field)\" is not \(expected)"
        case let .notASCII(field): return "\(field) holds characters that are not ASCII"
        case let .unsupportedVersion(version): return "version \(version) is not supported (expected 1)"
        case .unknownForm:
            return "not an OpenClaw identity file: neither publicKeyPem (TS form) nor publicKey and privateKey (Swift form)"
        case let .pemMissingBegin(label): return "PEM block does not start with -----BEGIN \(label)-----"
        case let .pemWrongLabel(expected, found): return "PEM block is \(found), expected \(expected)"
        case let .pemMissingEnd(label): return "PEM block does not end with -----END \(label)-----"
        case let .pemBody(label): return "\(label) PEM body is not base64 (encrypted keys are not supported)"
        case let .derLength(what, expected, actual):
            return "\(what) DER is \(actual) bytes, expected \(expected) (an Ed25519 key)"
        case let .derPrefix(what): return "\(what) DER is not an Ed25519 key (wrong algorithm or structure)"
        case let .base64(field): return "\(field) is not base64"
        case let .length(field, expected, actual): return "\(field) is \(actual) bytes, expected \(expected)"
        case .publicKeyMismatch: return "the public key does not belong to the private key"
        case let .invalidTimestamp(field): return "\(field) is not a time in milliseconds since the epoch"
        }
    }
}

/// A failure of an identity operation: decoding, files, permissions or libsodium.
public enum IdentityError: ClawpairError, Equatable {
    /// libsodium could not be initialised.
    case sodiumUnavailable
    /// Guarded memory for a secret could not be allocated.
    case outOfSecureMemory
    /// A libsodium call reported failure (its name).
    case crypto(String)
    /// Text given as a public key, signature or key file is malformed (no file involved).
    case invalid(what: String, IdentityFormatError)
    /// A file is malformed.
    case malformed(path: String, IdentityFormatError)
    /// A secret file that others may read or write (ssh refuses these too).
    case unsafePermissions(path: String, mode: UInt32)
    /// The path is a symbolic link; key files are opened with O_NOFOLLOW.
    case symlink(path: String)
    /// The path is not a regular file.
    case notARegularFile(path: String)
    /// There is no identity file at the path.
    case noIdentity(path: String)
    /// A file exists and replacing it was not allowed.
    case alreadyExists(path: String)
    /// The stored deviceId is not the SHA-256 of the stored public key.
    case deviceIdMismatch(path: String, stored: String, derived: String)
    /// A token cache belongs to another device.
    case tokenCacheMismatch(path: String, cacheDeviceId: String, identityDeviceId: String)
    /// The toolkit would write inside OpenClaw's state directory without being told that path.
    case insideOpenClawState(path: String)
    /// OpenClaw's SQLite state store cannot be read: not a database, not OpenClaw's schema, no
    /// identity row, a value out of bounds, or an SQLite failure (the reason).
    case stateStore(path: String, reason: String)
    /// A system call failed.
    case system(SystemError)
    /// An atomic write or private directory failed.
    case file(AtomicFileError)

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .sodiumUnavailable: return "libsodium could not be initialised"
        case .outOfSecureMemory: return "could not allocate locked memory for a secret key"
        case let .crypto(call): return "libsodium failed: \(call)"
        case let .invalid(what, error): return "\(what): \(error.message)"
        case let .malformed(path, error): return "\(path): \(error.message)"
        case let .unsafePermissions(path, mode):
            return "\(path) is accessible to other users (mode \(String(mode & 0o7777, radix: 8))); refusing to use a key others can read"
        case let .symlink(path): return "\(path) is a symbolic link; key files must be regular files"
        case let .notARegularFile(path): return "\(path) is not a regular file"
        case let .noIdentity(path): return "no identity at \(path)"
        case let .alreadyExists(path): return "\(path) already exists"
        case let .deviceIdMismatch(path, stored, derived):
            return "\(path): stored deviceId \(stored) is not the key's deviceId \(derived)"
        case let .tokenCacheMismatch(path, cache, identity):
            return "\(path) holds tokens of device \(cache), not of this identity (\(identity))"
        case let .insideOpenClawState(path):
            return "\(path) is inside OpenClaw's state directory, which clawpair does not write to by default"
        case let .stateStore(path, reason): return "\(path): \(reason)"
        case let .system(error): return error.message
        case let .file(error): return error.message
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .sodiumUnavailable, .outOfSecureMemory, .crypto:
            return "check that libsodium (libsodium23) is installed and the process may lock memory"
        case .invalid: return nil
        case .malformed:
            return "the file is damaged or not an identity file; restore it from a backup, or replace it with a new identity (which must be paired again)"
        case let .unsafePermissions(path, _): return "run: chmod 600 \(path)"
        case .symlink: return "give the real path of the file"
        case .notARegularFile: return "give the path of an identity file"
        case .noIdentity: return "create a new identity or import an existing one"
        case .alreadyExists: return "replace it only on purpose: the old identity is lost unless you exported it"
        case .deviceIdMismatch: return "import the file again to rewrite the deviceId"
        case .tokenCacheMismatch: return "import the matching device.json first, or use that device's token cache"
        case .insideOpenClawState:
            return "name the file explicitly if you really mean to write there"
        case .stateStore:
            return "give OpenClaw's state database (~/.openclaw/state/openclaw.sqlite) or one of its identity files; "
                + "'openclaw doctor' checks the store"
        case let .system(error): return error.hint
        case let .file(error): return error.hint
        }
    }
}
