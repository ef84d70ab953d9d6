// RFC 6762 timing and addresses, in one place.
//
// When a one-shot browse (`clawpair discover`) ends, the native querier's rule:
//   1. The first PTR query goes out after a random 20–120 ms (§5.2, ``firstQueryDelay``), with
//      the QU bit; the next after ``firstQueryInterval`` (1 s), and each later interval doubles.
//   2. The answer is complete once at least ``completionQueries`` (2) browse queries have gone
//      out, every instance seen has its SRV, TXT and an address, the last browse query brought
//      no instance not seen before (one that did is a sign answers are being lost: wait for the
//      next query), and nothing new has arrived for ``quietPeriod`` since the last query or answer.
//   The second query repeats the question for answers lost on the way (with known-answer
//   suppression, only the gateways not heard yet answer it); the quiet period covers responders
//   that delay their answers (20–120 ms, §6) and links that add their own delay. The caller's
//   deadline (`--timeout`) stays the upper bound.
//   3. A host-name lookup (a `.local` name being dialed, ``MDNSQuerier/addresses(of:ipv6:until:interfaces:clock:)``)
//      asks A or AAAA at once, asking for multicast answers, then after ``firstQueryInterval``
//      and doubling intervals, and ends at the first response that has an address.
//   Answers that arrive together are read off the socket first (at most ``maxBurstPackets``)
//   and worked on as one burst, into a receive buffer of ``receiveBufferBytes``.

/// Multicast DNS constants (RFC 6762).
public enum MDNSTiming {
    /// The mDNS port (§1).
    public static let port: UInt16 = 5353
    /// The IPv4 group 224.0.0.251 (§3).
    public static let ipv4Group: [UInt8] = [224, 0, 0, 251]
    /// The IPv6 group ff02::fb (§3).
    public static let ipv6Group: [UInt8] = [0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFB]
    /// The range of the random delay before the first query (§5.2: 20–120 ms).
    public static let firstQueryDelay: ClosedRange<Int> = 20...120
    /// Browse queries sent before a one-shot browse may call its answer complete (rule 2 above).
    public static let completionQueries = 2
    /// How long nothing new must arrive after the last query or answer before a one-shot browse
    /// ends (rule 2 above): twice a responder's longest shared-answer delay (§6: 120 ms), and a little.
    public static let quietPeriod: Duration = .milliseconds(250)
    /// The first continuous query interval; each later one doubles (§5.2).
    public static let firstQueryInterval: Duration = .seconds(1)
    /// The longest interval between continuous queries (§5.2).
    public static let maxQueryInterval: Duration = .seconds(3600)
    /// How long a record stays after a goodbye (TTL 0), or after a cache-flush replaced it (§10.1, §10.2).
    public static let goodbyeGrace: Duration = .seconds(1)
    /// A known answer is listed in a query only while more than half its TTL remains (§7.1).
    public static let knownAnswerFraction = 0.5
    /// Interval between follow-up queries for an instance's SRV/TXT or a host's addresses that
    /// have not arrived yet.
    public static let resolveRetryInterval: Duration = .milliseconds(500)
    /// The largest mDNS message accepted (§17: 9000 bytes incl. headers).
    public static let maxMessageBytes = 9000
    /// Most packets read off a socket before the browser works on them (one burst).
    public static let maxBurstPackets = 256
    /// The receive buffer the querier asks for: a burst of forty 9000-byte answers, fragmented.
    public static let receiveBufferBytes = 1 << 20
}
