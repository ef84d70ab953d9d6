// Publishing services through avahi-daemon with Avahi's client library: one client connection
// (AvahiPublisher) and, per service, an entry group of its own (AvahiPublication) whose state
// callback says when the service is established and when its name collided with another host's.
// Unlike the Bonjour-compat layer, which renames silently on a collision, nothing is renamed
// here: the caller sees every collision and chooses the next name (avahi_alternative_service_name).
// The C calls live in AvahiPublisher+AvahiClient.swift.

import ClawpairCore

/// A service to publish: an instance of `type` on `port` with TXT character-strings.
public struct AvahiService: Sendable, Equatable {
    /// The instance name (a DNS label: at most 63 bytes of UTF-8).
    public var name: String
    /// The service type, e.g. `_openclaw-gw._tcp`.
    public var type: String
    /// The SRV port.
    public var port: UInt16
    /// The TXT character-strings, in order (each at most 255 bytes).
    public var txt: [[UInt8]]
    /// The interface indexes to publish on; empty for every interface avahi-daemon uses.
    public var interfaces: [Int32]
    /// The SRV target host, e.g. `gw.local`; nil for the daemon's own host name.
    public var host: String?
    /// The addresses published for ``host`` (ignored when it is nil or the daemon's own name).
    public var hostAddresses: [AvahiHostAddress]

    /// A service named `name` of `type` on `port` with TXT `txt`, on `interfaces` (empty: every
    /// one) and SRV target `host` (nil: the daemon's host name) with `hostAddresses` as its records.
    public init(name: String, type: String, port: UInt16, txt: [[UInt8]], interfaces: [Int32] = [], host: String? = nil,
                hostAddresses: [AvahiHostAddress] = []) {
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
        self.interfaces = interfaces
        self.host = host
        self.hostAddresses = hostAddresses
    }
}

/// One address record of a published host name: an IPv4 or IPv6 address on one interface.
public struct AvahiHostAddress: Sendable, Equatable {
    /// The interface index the record is published on.
    public var interface: Int32
    /// The address as text (`192.0.2.1`, `fe80::1`).
    public var address: String

    /// The address `address` on interface `interface`.
    public init(interface: Int32, address: String) {
        self.interface = interface
        self.address = address
    }
}

/// Where a publication stands, as its entry groups report it.
public enum AvahiPublicationState: Sendable, Equatable {
    /// Probing and announcing (or waiting for the daemon to be running again).
    case registering
    /// Every record is established: the daemon answers for the service.
    case established
    /// The service name is taken: already registered on this daemon, or claimed by another
    /// host while probing or later. The records are withdrawn; publish under another name.
    case collision
    /// The SRV target host name is claimed by another host. The records are withdrawn.
    case hostCollision
    /// The daemon refused or dropped the records.
    case failed(AvahiError)
}
