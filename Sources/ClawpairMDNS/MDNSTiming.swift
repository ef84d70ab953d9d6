// RFC 6762 timing and addresses, in one place.
//
// When a one-shot browse (`clawpair discover`) ends, the native querier's rule:
//   1. The first PTR query goes out after a random 20–120 ms (§5.2, ``firstQueryDelay``), with
//      the QU bit; the next after ``firstQueryInterval`` (1 s), and each later interval doubles
//      (§5.2: "the interval between the first two queries MUST be at least one second").
//   2. Lost answers are asked for again well before that second query, directly: each responder
//      that answered (from port 5353) gets, ``reaskDelay`` after its last answer, a unicast query
//      to its port 5353 (§5.5) with the QU bit (§5.4: answered by unicast, so a responder's rule
//      of multicasting a record at most once a second, §6, does not hold the answer back), the
//      PTRs it gave as known answers (§7.1: it answers only with what we lack) and the SRV, TXT
//      and address questions of its instances that are still unresolved. A re-ask is sent again
//      ``reaskDelay`` after each reply, or ``reaskSilence`` after it when no reply came (the reply
//      may have been lost; a responder that honours known answers and has nothing more is silent
//      too, and costs a small query), at most ``maxReasks`` per responder. An instance whose PTR came without its SRV, TXT or
//      address is asked for at once (QU) and then on the §5.2 schedule (1 s, doubling).
//   3. The answer is complete once every instance seen has its SRV, TXT and an address and
//      ``allForNow`` (1 s) has passed since the browse began and ``quietPeriod`` since the last
//      change: when avahi-browse -rt would end on the same answers (avahi-daemon reports "all for
//      now" one second after its querier was created: avahi-core/multicast-lookup.c, and
//      avahi-browse -rt then waits for the resolves it started). Two cases wait for the second
//      browse query instead, and end ``quietPeriod`` after it or the last change (whichever is
//      later): nothing was found (every answer to the first query may have been lost), or a
//      re-ask brought an instance not seen before (answers are being lost on this link, so
//      responders never heard from may have lost all of theirs; only the multicast query
//      reaches them). The caller's deadline (`--timeout`) stays the upper bound.
//   4. A host-name lookup (a `.local` name being dialed, ``MDNSQuerier/addresses(of:ipv6:until:interfaces:clock:)``)
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
    /// Browse queries sent before a one-shot browse that found nothing, or saw answers lost, may
    /// call its answer complete (rule 3 above).
    public static let completionQueries = 2
    /// How long after it began a one-shot browse may call its answer complete (rule 3 above):
    /// avahi-daemon's "all for now", one second after its querier was created.
    public static let allForNow: Duration = .seconds(1)
    /// How long nothing new must arrive after the last change (or, in the cases that wait for the
    /// second query, after that query) before a one-shot browse ends (rule 3 above): twice a
    /// responder's longest shared-answer delay (§6: 120 ms), and a little.
    public static let quietPeriod: Duration = .milliseconds(250)
    /// How long after a responder's last answer it is asked again directly (rule 2 above): past
    /// the 20–120 ms a responder spreads shared answers over (§6), and a little.
    public static let reaskDelay: Duration = .milliseconds(150)
    /// How long after a direct re-ask that got no reply it is sent again (rule 2 above): the
    /// reply's ``reaskDelay`` and the 20–120 ms a responder may wait before answering (§6), and
    /// a little.
    public static let reaskSilence: Duration = .milliseconds(300)
    /// Most direct re-asks per responder in one browse (rule 2 above).
    public static let maxReasks = 5
    /// The first continuous query interval; each later one doubles (§5.2).
    public static let firstQueryInterval: Duration = .seconds(1)
    /// The longest interval between continuous queries (§5.2).
    public static let maxQueryInterval: Duration = .seconds(3600)
    /// How long a record stays after a goodbye (TTL 0), or after a cache-flush replaced it (§10.1, §10.2).
    public static let goodbyeGrace: Duration = .seconds(1)
    /// A known answer is listed in a query only while more than half its TTL remains (§7.1).
    public static let knownAnswerFraction = 0.5
    /// The largest mDNS message accepted (§17: 9000 bytes incl. headers).
    public static let maxMessageBytes = 9000
    /// Most packets read off a socket before the browser works on them (one burst).
    public static let maxBurstPackets = 256
    /// The receive buffer the querier asks for: a burst of forty 9000-byte answers, fragmented.
    public static let receiveBufferBytes = 1 << 20
}
