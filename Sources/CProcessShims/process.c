#include "CProcessShims.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <termios.h>

int CProcessShims_disableCoreDumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    return 0;
}

// The terminal of CProcessShims_restoreTerminalOnStop: written before the handlers are installed
// and after they are removed, read only by them.
static int stop_fd = -1;
static struct termios stop_saved;
static struct termios stop_active;
static struct sigaction previous_tstp;
static struct sigaction previous_cont;
static volatile sig_atomic_t stop_installed = 0;

/// Installs `handler` for `signo` (SA_RESTART, nothing else blocked), the old disposition into `old`
/// when given; sigaction(2) is async-signal-safe, so the SIGCONT handler uses this too.
static int install_handler(int signo, void (*handler)(int), struct sigaction *old) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, old);
}

// Ctrl-Z: the terminal as the user had it, then the stop SIGTSTP would have been. The signal is
// blocked while this runs, so the raised one is delivered, with the default action, on return.
static void on_stop(int signo) {
    (void)signo;
    int saved_errno = errno;
    tcsetattr(stop_fd, TCSANOW, &stop_saved);
    signal(SIGTSTP, SIG_DFL);
    raise(SIGTSTP);
    errno = saved_errno;
}

// fg: the mode the program runs in again, and Ctrl-Z handled again.
static void on_continue(int signo) {
    (void)signo;
    int saved_errno = errno;
    if (stop_installed) {
        install_handler(SIGTSTP, on_stop, NULL);
        tcsetattr(stop_fd, TCSANOW, &stop_active);
    }
    errno = saved_errno;
}

int CProcessShims_restoreTerminalOnStop(int fd, const struct termios *saved, const struct termios *active) {
    if (stop_installed) CProcessShims_releaseTerminalOnStop();
    struct sigaction current;
    if (sigaction(SIGTSTP, NULL, &current) != 0) return -1;
    if (current.sa_handler == SIG_IGN) return 0;  // no job control here: Ctrl-Z cannot stop us
    stop_fd = fd;
    stop_saved = *saved;
    stop_active = *active;
    if (install_handler(SIGCONT, on_continue, &previous_cont) != 0) return -1;
    if (install_handler(SIGTSTP, on_stop, &previous_tstp) != 0) {
        int failure = errno;
        sigaction(SIGCONT, &previous_cont, NULL);
        errno = failure;
        return -1;
    }
    stop_installed = 1;
    return 0;
}

void CProcessShims_releaseTerminalOnStop(void) {
    if (!stop_installed) return;
    stop_installed = 0;
    sigaction(SIGTSTP, &previous_tstp, NULL);
    sigaction(SIGCONT, &previous_cont, NULL);
}
