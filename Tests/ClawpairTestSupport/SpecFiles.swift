import Foundation

/// Where the shared specification lives: `../shared/spec` beside the package root
/// (how both the developers' checkout and CI lay it out), or `$CLAWPAIR_SPEC_DIR`.
public enum SpecFiles {
    /// The package root, derived from this file's path (`Tests/ClawpairTestSupport/SpecFiles.swift`).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `spec` directory.
    public static var specDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["CLAWPAIR_SPEC_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/spec")
    }

    /// `vectors.json`, as bytes. Throws with the path when it is missing, so a failure says where it looked.
    public static func vectorsData() throws -> Data {
        let url = specDirectory.appendingPathComponent("vectors.json")
        do {
            return try Data(contentsOf: url)
        } catch {
            throw SpecFileError(message: "cannot read \(url.path): \(error). Set CLAWPAIR_SPEC_DIR to the shared/spec directory.")
        }
    }

    /// Decodes one top-level group of `vectors.json` (e.g. `"setupCode.decode"`) as `T`.
    public static func vectors<T: Decodable>(_ group: String, as type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.userInfo[GroupPicker<T>.groupKey] = group
        return try decoder.decode(GroupPicker<T>.self, from: try vectorsData()).value
    }
}

/// A missing or unreadable spec file.
public struct SpecFileError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Decodes only the top-level key named in `userInfo`, ignoring the others.
private struct GroupPicker<T: Decodable>: Decodable {
    static var groupKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "clawpair.vectorGroup")! }
    let value: T
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    init(from decoder: any Decoder) throws {
        let name = decoder.userInfo[Self.groupKey] as? String ?? ""
        let container = try decoder.container(keyedBy: Key.self)
        value = try container.decode(T.self, forKey: Key(stringValue: name))
    }
}
