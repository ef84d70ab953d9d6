// libFuzzer target: the image-loading path of `clawpair qr scan` (format sniffing, the PNM
// parser, libpng through png_image, libjpeg through the CImageShims setjmp forwarders), on
// arbitrary bytes. Invariants beyond "never traps, exits or leaks": a decoded image has
// width × height pixels within the limit, and the scanner's clean-up passes keep their shapes.
// Limits are smaller than the CLI's so that one input stays fast.
import CFuzzerDriver
import ClawpairQR

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzImageLoad_main")
public func fuzzImageLoadMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzImageLoad(data, size) }
}

/// 1 megapixel and 64 progressive scans: big enough for every code path, small enough for speed.
let fuzzLimits = ImageLimits(maxPixels: 1_000_000, maxJPEGScans: 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageLoad(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let loaded = try? ImageLoader.load(bytes, limits: fuzzLimits) else { return 0 }
    let image = loaded.image
    precondition(ImageFormat.sniff(bytes) == loaded.format, "decoded as a format the bytes do not announce")
    precondition(image.width > 0 && image.height > 0 && image.width * image.height <= fuzzLimits.maxPixels)
    precondition(image.pixels.count == image.width * image.height)
    if image.width * image.height <= 65_536 {
        let halved = image.halved()
        precondition(halved.pixels.count == halved.width * halved.height)
        let sharpened = image.sharpened()
        precondition(sharpened.width == image.width && sharpened.height == image.height)
        let doubled = image.doubled()
        precondition(doubled.width == 2 * image.width && doubled.height == 2 * image.height)
    }
    return 0
}
