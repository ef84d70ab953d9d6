// Punycode (RFC 3492) for internationalized host labels.
//
// Encoding and decoding are bounded: labels longer than `maxLabelScalars` are refused (the
// algorithm is quadratic in label length), and every arithmetic step checks for overflow as
// RFC 3492 §6.4 requires.

/// RFC 3492 Punycode with the IDNA parameters (§5).
enum Punycode {
    /// The longest label (in Unicode scalars) encoded or decoded; longer input is refused.
    static let maxLabelScalars = 1024

    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 0x80

    private static func adapt(_ deltaIn: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? deltaIn / damp : deltaIn / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ d: Int) -> UInt8 {
        d < 26 ? UInt8(d) + UInt8(ascii: "a") : UInt8(d - 26) + UInt8(ascii: "0")
    }

    private static func digitValue(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(c - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(c - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0")) + 26
        default: return nil
        }
    }

    /// Encodes one label's scalars (without the `xn--` prefix), or `nil` on overflow or excess length.
    static func encode(_ input: [Unicode.Scalar]) -> String? {
        guard input.count <= maxLabelScalars else { return nil }
        let codePoints = input.map { Int($0.value) }
        var output: [UInt8] = codePoints.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < codePoints.count {
            guard let m = codePoints.filter({ $0 >= n }).min() else { return nil }
            let (step, o1) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !o1 else { return nil }
            let (d2, o2) = delta.addingReportingOverflow(step)
            guard !o2 else { return nil }
            delta = d2
            n = m
            for c in codePoints {
                if c < n {
                    let (d3, o3) = delta.addingReportingOverflow(1)
                    guard !o3 else { return nil }
                    delta = d3
                }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes one label (without the `xn--` prefix), or `nil` when it is not valid Punycode.
    static func decode(_ input: [UInt8]) -> [Unicode.Scalar]? {
        guard input.count <= maxLabelScalars * 4 else { return nil }
        var output: [Int] = []
        var b = 0
        if let lastDelimiter = input.lastIndex(of: UInt8(ascii: "-")) {
            for c in input[..<lastDelimiter] {
                guard c < 0x80 else { return nil }
                output.append(Int(c))
            }
            b = lastDelimiter + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        var position = b
        while position < input.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard position < input.count, let d = digitValue(input[position]) else { return nil }
                position += 1
                let (dw, o1) = d.multipliedReportingOverflow(by: w)
                guard !o1 else { return nil }
                let (ni, o2) = i.addingReportingOverflow(dw)
                guard !o2 else { return nil }
                i = ni
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if d < t { break }
                let (nw, o3) = w.multipliedReportingOverflow(by: base - t)
                guard !o3 else { return nil }
                w = nw
                k += base
            }
            let count = output.count + 1
            bias = adapt(i - oldI, count, oldI == 0)
            let (nn, o4) = n.addingReportingOverflow(i / count)
            guard !o4 else { return nil }
            n = nn
            i %= count
            guard n <= 0x10FFFF, output.count < maxLabelScalars else { return nil }
            output.insert(n, at: i)
            i += 1
        }
        var scalars: [Unicode.Scalar] = []
        for v in output {
            guard let s = Unicode.Scalar(UInt32(v)) else { return nil }
            scalars.append(s)
        }
        return scalars
    }
}
