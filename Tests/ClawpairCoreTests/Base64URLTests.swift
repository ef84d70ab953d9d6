import ClawpairCore
import ClawpairTestSupport
import Foundation
import Testing

@Suite struct Base64Tests {
    @Test(arguments: [
        ("", "", ""), ("f", "Zg==", "Zg"), ("fo", "Zm8=", "Zm8"), ("foo", "Zm9v", "Zm9v"),
        ("foob", "Zm9vYg==", "Zm9vYg"), ("fooba", "Zm9vYmE=", "Zm9vYmE"), ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, standard: String, url: String) throws {
        #expect(Base64.encode(Array(plain.utf8)) == standard, "\(plain)")
        #expect(Base64URL.encode(Array(plain.utf8)) == url, "\(plain)")
        #expect(try Base64.decode(standard) == Array(plain.utf8), "\(plain)")
        #expect(try Base64URL.decode(url) == Array(plain.utf8), "\(plain)")
        #expect(try Base64URL.decode(standard) == Array(plain.utf8), "\(plain) padded")
    }

    @Test func alphabets() throws {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(try Base64.decode("+/+/") == bytes)
        #expect(throws: Base64Error.invalidCharacter(offset: 0)) { try Base64.decode("-_-_") }
        #expect(throws: Base64Error.invalidCharacter(offset: 0)) { try Base64.decode("+/+/", alphabet: .url, padding: .optional) }
        #expect(try Base64URL.decode("-_+/") == bytes + [])
    }

    @Test func paddingRules() throws {
        #expect(try Base64URL.decode("Zg=") == [0x66])       // partial padding, as the apps' re-padding allows
        #expect(throws: Base64Error.invalidPadding) { try Base64URL.decode("Zg===") }
        #expect(throws: Base64Error.invalidPadding) { try Base64URL.decode("Zm9v=") }
        #expect(throws: Base64Error.invalidPadding) { try Base64.decode("Zg") }
        #expect(throws: Base64Error.invalidPadding) { try Base64.decode("Zg=", padding: .required) }
        #expect(throws: Base64Error.invalidPadding) { try Base64.decode("Zg==", alphabet: .url, padding: .forbidden) }
        #expect(throws: Base64Error.invalidLength(1)) { try Base64URL.decode("Z") }
        #expect(throws: Base64Error.invalidLength(5)) { try Base64URL.decode("Zm9vY") }
        #expect(throws: Base64Error.invalidCharacter(offset: 2)) { try Base64URL.decode("Zg=a") }
        #expect(throws: Base64Error.invalidCharacter(offset: 2)) { try Base64URL.decode("Zm 9") }
        #expect(throws: Base64Error.invalidCharacter(offset: 0)) { try Base64URL.decode("é==") }
        #expect(try Base64URL.decode("Zh") == [0x66]) // non-zero trailing bits accepted
    }

    @Test func randomRoundTripsAgreeWithFoundation() throws {
        var rng = SeededGenerator(seed: 7)
        for n in 0..<300 {
            let bytes = (0..<(n % 70)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let standard = Base64.encode(bytes)
            #expect(standard == Data(bytes).base64EncodedString(), "length \(bytes.count)")
            #expect(try Base64.decode(standard) == bytes)
            let url = Base64URL.encode(bytes)
            #expect(!url.contains("=") && !url.contains("+") && !url.contains("/"))
            #expect(try Base64URL.decode(url) == bytes)
            #expect(try Base64.decode(url, alphabet: .url, padding: .forbidden) == bytes)
        }
    }
}
