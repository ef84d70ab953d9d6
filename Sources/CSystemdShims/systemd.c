// Without this, sd-journal.h maps sd_journal_sendv to sd_journal_sendv_with_location (a macro).
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include "CSystemdShims.h"

#include <CLazyLibrary.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

// The libsystemd functions clawpair calls, resolved by CSystemdShims_load (see CLazyLibrary.h).
#define SYSTEMD_FUNCTIONS(F) \
    F(sd_notify) F(sd_watchdog_enabled) F(sd_journal_sendv) \
    F(sd_bus_open_user) F(sd_bus_set_method_call_timeout) F(sd_bus_call_method) F(sd_bus_message_read) \
    F(sd_bus_message_unref) F(sd_bus_error_free) F(sd_bus_flush_close_unref)

static struct {
    SYSTEMD_FUNCTIONS(CLAZY_FIELD)
} systemd;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

static void load(void) {
    static const char *const libraries[] = {"libsystemd.so.0"};
    static const char *const names[] = {SYSTEMD_FUNCTIONS(CLAZY_NAME)};
#define SLOT(name) CLAZY_SLOT(systemd, name)
    void *const slots[] = {SYSTEMD_FUNCTIONS(SLOT)};
#undef SLOT
    load_status = CLazyLibrary_open(libraries, 1, names, slots, sizeof names / sizeof *names, load_error,
                                    sizeof load_error);
}

int CSystemdShims_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *CSystemdShims_load_error(void) { return load_error; }

int CSystemdShims_sd_notify(const char *state) { return systemd.sd_notify(0, state); }

int CSystemdShims_sd_watchdog_enabled(uint64_t *usec) { return systemd.sd_watchdog_enabled(0, usec); }

int CSystemdShims_journal_send(const char *message, int priority, const char *identifier) {
    char priority_field[16];
    snprintf(priority_field, sizeof priority_field, "PRIORITY=%d", priority < 0 ? 0 : (priority > 7 ? 7 : priority));
    size_t message_size = strlen(message) + sizeof "MESSAGE=";
    size_t identifier_size = strlen(identifier) + sizeof "SYSLOG_IDENTIFIER=";
    char message_field[message_size];
    char identifier_field[identifier_size];
    snprintf(message_field, message_size, "MESSAGE=%s", message);
    snprintf(identifier_field, identifier_size, "SYSLOG_IDENTIFIER=%s", identifier);
    struct iovec fields[3] = {
        {message_field, strlen(message_field)},
        {priority_field, strlen(priority_field)},
        {identifier_field, strlen(identifier_field)},
    };
    return systemd.sd_journal_sendv(fields, 3);
}

int CSystemdShims_desktop_notify(const char *app, const char *summary, const char *body, uint8_t urgency,
                                 int32_t expire_ms, uint64_t timeout_usec, uint32_t *id, char *error,
                                 size_t error_size) {
    sd_bus *bus = NULL;
    sd_bus_message *reply = NULL;
    sd_bus_error bus_error = SD_BUS_ERROR_NULL;
    error[0] = 0;
    int r = systemd.sd_bus_open_user(&bus);
    if (r < 0) {
        snprintf(error, error_size, "no session bus: %s", strerror(-r));
        return r;
    }
    r = systemd.sd_bus_set_method_call_timeout(bus, timeout_usec);
    if (r >= 0) {
        // Notify(app_name s, replaces_id u, app_icon s, summary s, body s, actions as, hints a{sv}, expire_timeout i)
        r = systemd.sd_bus_call_method(bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                       "org.freedesktop.Notifications", "Notify", &bus_error, &reply,
                                       "susssasa{sv}i", app, (uint32_t)0, "", summary, body, 0, 1, "urgency", "y",
                                       urgency, expire_ms);
    }
    if (r >= 0) r = systemd.sd_bus_message_read(reply, "u", id);
    if (r < 0) {
        const char *reason = bus_error.message != NULL ? bus_error.message : strerror(-r);
        snprintf(error, error_size, "%s", reason);
    }
    systemd.sd_bus_error_free(&bus_error);
    if (reply != NULL) systemd.sd_bus_message_unref(reply);
    systemd.sd_bus_flush_close_unref(bus);
    return r < 0 ? r : 0;
}
