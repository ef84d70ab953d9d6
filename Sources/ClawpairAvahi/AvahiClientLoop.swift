// One avahi-client connection on an AvahiSimplePoll that clawpair drives one iteration at a
// time: the browser and the publisher each own one, set up the same way.

internal import CAvahiClientShims

/// Opening libavahi-client's main loop and client for a browser or a publisher.
enum AvahiClientLoop {
    /// Loads libavahi-client, makes a simple poll whose poll(2) is `poll`, and connects a client
    /// on it (blocking calls: the bus connection, Hello, avahi-daemon's version and state);
    /// `context` goes to both callbacks. The caller owns both and frees the client first. Throws
    /// ``AvahiError/libraryUnavailable(_:)`` without the library, and the client's error when
    /// there is no system bus or no avahi-daemon on it (nothing is left allocated then).
    static func open(poll: AvahiPollFunc, callback: AvahiClientCallback,
                     context: UnsafeMutableRawPointer) throws(AvahiError) -> (loop: OpaquePointer, client: OpaquePointer) {
        guard CAvahiClientShims_load() == 0 else {
            throw .libraryUnavailable(String(cString: CAvahiClientShims_load_error()))
        }
        guard let loop = CAvahiClientShims_avahi_simple_poll_new() else {
            throw .refused("avahi_simple_poll_new", "out of memory")
        }
        CAvahiClientShims_avahi_simple_poll_set_func(loop, poll, context)
        var code: Int32 = 0
        guard let client = CAvahiClientShims_avahi_client_new(CAvahiClientShims_avahi_simple_poll_get(loop),
                                                              AvahiClientFlags(0), callback, context, &code) else {
            CAvahiClientShims_avahi_simple_poll_free(loop)
            throw AvahiBrowser.error("avahi_client_new", code)
        }
        return (loop, client)
    }
}
