#include "CAvahiBus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/// The spec's default system bus address.
static const char default_address[] = "unix:path=/var/run/dbus/system_bus_socket";

/// Undoes the address format's %XX escapes in place; -1 for a malformed escape.
static int unescape(char *text) {
    char *out = text;
    for (char *in = text; *in != 0; in++) {
        if (*in != '%') {
            *out++ = *in;
            continue;
        }
        unsigned value;
        if (in[1] == 0 || in[2] == 0 || sscanf(in + 1, "%2x", &value) != 1 || value == 0) return -1;
        *out++ = (char)value;
        in += 2;
    }
    *out = 0;
    return 0;
}

/// Fills `address` from the first `unix:` entry of `list` with a `path` or `abstract` key.
static int parse_address(const char *list, struct sockaddr_un *address, socklen_t *length) {
    char *copy = strdup(list);
    if (copy == NULL) return -1;
    int found = -1;
    char *entries = NULL;
    for (char *entry = strtok_r(copy, ";", &entries); entry != NULL && found != 0; entry = strtok_r(NULL, ";", &entries)) {
        if (strncmp(entry, "unix:", 5) != 0) continue;
        char *pairs = NULL;
        for (char *pair = strtok_r(entry + 5, ",", &pairs); pair != NULL; pair = strtok_r(NULL, ",", &pairs)) {
            int abstract = strncmp(pair, "abstract=", 9) == 0;
            if (!abstract && strncmp(pair, "path=", 5) != 0) continue;
            char *value = pair + (abstract ? 9 : 5);
            size_t size = strlen(value);
            if (unescape(value) != 0 || (size = strlen(value)) == 0 || size + (size_t)abstract >= sizeof address->sun_path) {
                break;
            }
            memset(address, 0, sizeof *address);
            address->sun_family = AF_UNIX;
            memcpy(address->sun_path + abstract, value, size);
            *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + size + (size_t)abstract + (abstract ? 0 : 1));
            found = 0;
            break;
        }
    }
    free(copy);
    return found;
}

int CAvahiBus_send(int fd, const uint8_t *bytes, size_t length) {
    size_t done = 0;
    int waits = 0;
    while (done < length) {
        ssize_t written = send(fd, bytes + done, length - done, MSG_NOSIGNAL);
        if (written > 0) {
            done += (size_t)written;
        } else if (written < 0 && errno == EINTR) {
            continue;
        } else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waits++ < 10) {
            struct pollfd entry = {.fd = fd, .events = POLLOUT};
            poll(&entry, 1, 100);
        } else {
            return -1;
        }
    }
    return 0;
}

int CAvahiBus_connect(const uint8_t *messages, size_t length) {
    const char *list = getenv("DBUS_SYSTEM_BUS_ADDRESS");
    struct sockaddr_un address;
    socklen_t address_length = 0;
    if (parse_address(list != NULL && *list != 0 ? list : default_address, &address, &address_length) != 0) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    // A Unix socket connects at once or fails (EAGAIN: the listener's backlog is full).
    if (connect(fd, (struct sockaddr *)&address, address_length) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    // EXTERNAL: the uid as hex-encoded ASCII digits (the server checks it against the socket's
    // credentials), then BEGIN without waiting for OK, then the messages.
    char uid[16], auth[64];
    int digits = snprintf(uid, sizeof uid, "%u", (unsigned)geteuid());
    int used = snprintf(auth, sizeof auth, "%cAUTH EXTERNAL ", 0);
    for (int i = 0; i < digits; i++) used += snprintf(auth + used, sizeof auth - (size_t)used, "%02x", uid[i]);
    used += snprintf(auth + used, sizeof auth - (size_t)used, "\r\nBEGIN\r\n");
    uint8_t *packet = malloc((size_t)used + length);
    if (packet == NULL) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    memcpy(packet, auth, (size_t)used);
    if (length > 0) memcpy(packet + used, messages, length);
    int status = CAvahiBus_send(fd, packet, (size_t)used + length);
    int saved = errno;
    free(packet);
    if (status != 0) {
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

static struct {
    pthread_mutex_t lock;
    int fd;
    uint8_t *messages;
    size_t length;
} prestarted = {PTHREAD_MUTEX_INITIALIZER, -1, NULL, 0};

int CAvahiBus_prestart(const uint8_t *messages, size_t length) {
    pthread_mutex_lock(&prestarted.lock);
    int status = -1;
    uint8_t *copy = length > 0 ? malloc(length) : NULL;
    if (prestarted.fd < 0 && length > 0 && copy != NULL) {
        memcpy(copy, messages, length);
        int fd = CAvahiBus_connect(messages, length);
        if (fd >= 0) {
            prestarted.fd = fd;
            prestarted.messages = copy;
            prestarted.length = length;
            copy = NULL;
            status = 0;
        }
    }
    free(copy);
    pthread_mutex_unlock(&prestarted.lock);
    return status;
}

int CAvahiBus_take(const uint8_t *messages, size_t length) {
    pthread_mutex_lock(&prestarted.lock);
    int fd = -1;
    if (prestarted.fd >= 0 && prestarted.length == length && memcmp(prestarted.messages, messages, length) == 0) {
        fd = prestarted.fd;
        prestarted.fd = -1;
        free(prestarted.messages);
        prestarted.messages = NULL;
        prestarted.length = 0;
    }
    pthread_mutex_unlock(&prestarted.lock);
    return fd;
}
