import ClawpairCore

/// One image read, decoded and searched for QR codes: what a scan reports for each
/// image it is given.
///
/// A failure (reading the file, decoding the image, running zbar) is kept in ``error`` instead
/// of being thrown, so a batch of images goes on past a bad one and can report every image.
public struct ImageScan: Sendable {
    /// How messages name the image (a path, `standard input`).
    public let name: String
    /// The decoded image (its format, size and the decoder's warnings); nil when it could not be read.
    public let loaded: LoadedImage?
    /// The codes found, in zbar's order; empty when there is none or the image failed.
    public let codes: [ScannedCode]
    /// Why the image could not be read, decoded or scanned; nil when it was searched.
    public let error: (any Error)?

    /// Reads the image named `name` with `read` (a file, standard input), decodes it within
    /// `limits` (``ImageLoader/load(_:limits:)``) and searches it with `scanner`.
    public init(named name: String, reading read: () throws -> [UInt8], limits: ImageLimits = .default,
                scanner: QRScanner = QRScanner()) {
        do {
            let loaded = try ImageLoader.load(try read(), limits: limits)
            self.init(named: name, loaded: loaded, codes: try scanner.scan(loaded.image), error: nil)
        } catch {
            self.init(named: name, loaded: nil, codes: [], error: error)
        }
    }

    /// A result as given (for tests and for callers that decode or scan on their own).
    public init(named name: String, loaded: LoadedImage?, codes: [ScannedCode], error: (any Error)?) {
        self.name = name
        self.loaded = loaded
        self.codes = codes
        self.error = error
    }

    /// `PNG, 318×318 pixels, 1 QR code`; nil when the image could not be read.
    public var summary: String? {
        loaded.map { "\($0.format.displayName), \($0.image.width)×\($0.image.height) pixels, "
            + "\(codes.count) QR code\(codes.count == 1 ? "" : "s")" }
    }

    /// What was found, for a diagnostic log: `NAME: SUMMARY`, then `NAME: decoder warning: W` for
    /// each warning (sanitized); empty when the image could not be read.
    public var detailLines: [String] {
        guard let summary, let loaded else { return [] }
        return ["\(name): \(summary)"] + loaded.warnings.map { "\(name): decoder warning: \(TerminalText.sanitize($0))" }
    }

    /// ``error`` with ``name`` in front (`pair.png: the PNG image is damaged: …`), unless it is
    /// a file error of ``FileIO``, whose message names the file already.
    public var namedError: (any Error)? {
        guard let error else { return nil }
        let inner = (error as? ClawpairErrorBox)?.error ?? error
        return inner is SystemError || inner is FileIO.TooLarge ? error : ContextualError(name, error)
    }

    /// The JSON report for the image named `name` (as given: a path or `-`):
    /// `{"image", "format", "width", "height", "warnings", "codes", "error"}`, `format`, `width`
    /// and `height` null when it could not be read. `code` makes each code's object (from
    /// ``ScannedCode/jsonMembers``, plus what the caller knows about the payload) and `describe`
    /// the error's; `error` is null when the image was searched.
    public func json(image name: String, code: (ScannedCode) -> JSONValue,
                     error describe: (any Error) -> JSONValue) -> JSONValue {
        .object([
            ("image", .string(name)),
            ("format", loaded.map { .string($0.format.rawValue) } ?? .null),
            ("width", loaded.map { .int(Int64($0.image.width)) } ?? .null),
            ("height", loaded.map { .int(Int64($0.image.height)) } ?? .null),
            ("warnings", .array((loaded?.warnings ?? []).map(JSONValue.string))),
            ("codes", .array(codes.map(code))),
            ("error", error.map(describe) ?? .null),
        ])
    }
}

extension ScannedCode {
    /// `payload` (the text, null when it is not UTF-8) and `payloadBase64` (the exact bytes), for JSON.
    public var jsonMembers: [(String, JSONValue)] {
        [("payload", text.map(JSONValue.string) ?? .null), ("payloadBase64", .string(Base64.encode(payload)))]
    }
}
