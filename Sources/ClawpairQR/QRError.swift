import ClawpairCore

/// Why a QR code could not be made, an image could not be read, or a scan could not run.
///
/// Every case has a stable kebab-case ``code`` (carried by JSON reports), a message that says
/// what failed and a hint that says what to do next.
public enum QRError: ClawpairError, Equatable {
    /// There is nothing to encode.
    case emptyPayload
    /// The payload does not fit the largest QR symbol (version 40) at this error-correction level.
    case payloadTooLong(bytes: Int, maximum: Int, errorCorrection: QRErrorCorrection)
    /// A layout parameter (`scale`, `margin`) is outside its allowed range.
    case invalidParameter(name: String, value: Int, allowed: ClosedRange<Int>)
    /// libqrencode failed for another reason (its errno).
    case encoderFailed(errno: Int32)
    /// libpng could not write the image (its message).
    case pngWriteFailed(String)
    /// The bytes are not a PNG, JPEG or PNM image; `detected` names a recognised but unsupported format.
    case unsupportedImage(detected: String?)
    /// The image file is larger than ``ImageLimits/maxFileBytes``.
    case inputTooLarge(bytes: Int, limit: Int)
    /// The image is larger than the decoder accepts; it was refused before its pixels were decoded.
    case imageTooLarge(width: Int, height: Int, maxPixels: Int)
    /// The image data is malformed or truncated; `reason` is the decoder's explanation.
    case corruptImage(format: ImageFormat, reason: String)
    /// zbar failed (as opposed to finding no code).
    case scannerFailed(String)
    /// libzbar could not be loaded (the loader's reason).
    case scannerUnavailable(String)

    /// A stable identifier for scripts.
    public var code: String {
        switch self {
        case .emptyPayload: return "empty-payload"
        case .payloadTooLong: return "payload-too-long"
        case .invalidParameter: return "invalid-parameter"
        case .encoderFailed: return "encoder-failed"
        case .pngWriteFailed: return "png-write-failed"
        case .unsupportedImage: return "unsupported-image"
        case .inputTooLarge: return "input-too-large"
        case .imageTooLarge: return "image-too-large"
        case .corruptImage: return "corrupt-image"
        case .scannerFailed: return "scanner-failed"
        case .scannerUnavailable: return "scanner-unavailable"
        }
    }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .emptyPayload:
            return "there is nothing to encode"
        case .payloadTooLong(let bytes, let maximum, let level):
            return "\(bytes) bytes do not fit in a QR code with error correction \(level.rawValue) (at most \(maximum) bytes)"
        case .invalidParameter(let name, let value, let allowed):
            return "\(name) \(value) is out of range (\(allowed.lowerBound) to \(allowed.upperBound))"
        case .encoderFailed(let code):
            return "libqrencode failed: \(SystemError(call: "QRcode_encodeData", errno: code).message)"
        case .pngWriteFailed(let reason):
            return "libpng could not write the image: \(reason)"
        case .unsupportedImage(let detected):
            if detected == "SVG" { return "SVG is not supported: rasterize it first, e.g. with rsvg-convert" }
            if let detected { return "\(detected) images are not supported" }
            return "not a PNG, JPEG or PNM (PGM/PPM/PBM) image"
        case .inputTooLarge(let bytes, let limit):
            return "the image is \(bytes) bytes, more than the \(limit) clawpair reads"
        case .imageTooLarge(let width, let height, let maxPixels):
            return "the image is \(width)×\(height) pixels, more than the \(maxPixels) pixels clawpair decodes"
        case .corruptImage(let format, let reason):
            return "the \(format.displayName) image is damaged: \(reason)"
        case .scannerFailed(let reason):
            return "zbar failed: \(reason)"
        case .scannerUnavailable(let reason):
            return "the zbar library could not be loaded: \(reason)"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .emptyPayload:
            return "give a setup code or other text to encode"
        case .payloadTooLong(_, _, let level):
            return level == .low ? "shorten the text" : "use a lower error-correction level (L) or shorten the text"
        case .invalidParameter:
            return nil
        case .encoderFailed, .scannerFailed:
            return "this is a bug or an out-of-memory condition; try again"
        case .pngWriteFailed:
            return "write SVG instead"
        case .unsupportedImage(let detected):
            if detected == "SVG" { return "rasterize it to PNG first, e.g. with rsvg-convert IMAGE.svg" }
            return "convert it to PNG first, e.g. with convert IMAGE png:-"
        case .inputTooLarge, .imageTooLarge:
            return "crop or scale the image down around the QR code"
        case .scannerUnavailable:
            return "install it: apt install libzbar0"
        case .corruptImage:
            return "check that the file was copied completely; re-export or re-capture the image"
        }
    }
}
