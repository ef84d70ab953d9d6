import ClawpairDiscovery
import Testing

/// `BeaconAdvertisement.txtPairs(merging:)`: extra TXT entries of `clawpair advertise`.
@Suite struct AdvertisementTXTTests {
    static let advertisement = BeaconAdvertisement(BeaconOptions(machineName: "Studio", osHostname: "studio", gatewayPort: 18789))

    @Test func replacesInPlaceIgnoringCaseAndAppendsTheRest() throws {
        let base = Self.advertisement.txt.map(\.key)
        let merged = try Self.advertisement.txtPairs(merging: [("DisplayName", "Lab"), ("custom", "1"), ("gatewayport", "9")])
        #expect(merged.map(\.key) == base.map { $0 == "displayName" ? "DisplayName" : $0 == "gatewayPort" ? "gatewayport" : $0 } + ["custom"])
        #expect(merged.first { $0.key == "DisplayName" }?.value == "Lab")
        #expect(merged.first { $0.key == "gatewayport" }?.value == "9")
        #expect(merged.last?.value == "1")
        // Nothing extra: the advertisement's own pairs, in order.
        let plain = try Self.advertisement.txtPairs(merging: [])
        #expect(plain.map(\.key) == base && plain.map(\.value) == Self.advertisement.txt.map { $0.stringValue ?? "" })
    }

    @Test func refusesAnEntryOverTwoHundredFiftyFiveBytes() throws {
        let fits = String(repeating: "v", count: 255 - "k=".utf8.count)
        #expect(try Self.advertisement.txtPairs(merging: [("k", fits)]).last?.value == fits)
        #expect(throws: BeaconTXTError.entryTooLong(key: "k", bytes: 256)) {
            try Self.advertisement.txtPairs(merging: [("k", fits + "v")])
        }
    }
}
