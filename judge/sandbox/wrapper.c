/*
 * Exec helper of the Ocean Treasure judge's sandbox.
 *
 * Why a C helper: the judge is a threaded Python program, and doing set-up work
 * between fork() and exec() in Python (preexec_fn) can deadlock.  This small
 * program is exec'd by the judge and does, in a single-threaded process:
 *
 *   run      join the run's cgroups, become a child subreaper, fork the bot;
 *            in the child: the program's priority and its one core, new
 *            session, setns into the seat's namespaces,
 *            chdir, rlimits, drop to the seat's uid/gid, no_new_privs, exec.
 *            The helper then reaps every descendant (orphans come back to it
 *            because it is a subreaper), so it exits only when the program
 *            and everything it started have exited (ruling R17).  On SIGTERM
 *            (from the judge, or when the judge dies) it kills them all: every
 *            process of the seat's uid at once, or with -t only its own tree
 *            (a seat whose uid also runs a seat-long service, wine's server).
 *            A record of what happened is written to a status fd.  The
 *            program's clock starts when the child says its set-up is done
 *            (just before the uid drop and the exec), so the judge's own
 *            work, cgroup joins above all, is never on the program's time.
 *            With -W FD the run is armed ahead of its turn (through the
 *            zygote): the child does all of the set-up above but the core,
 *            then waits on FD for the judge's go, a line naming the core
 *            ("-1": none), pins itself there and carries on; EOF on FD calls
 *            the run off (the child exits, and so does the helper).
 *   holder   create a seat's namespaces once (network, IPC, UTS and a mount
 *            namespace whose root shows only system folders and the seat's
 *            own folder, with -W the seat's writable folders inside it, a
 *            mount of their own) and wait; the judge opens /proc/PID/ns/... and later
 *            runs setns() into them, which costs far less than a fresh
 *            network namespace per run.
 *   zygote   a seat-long helper that forks one "run" per request (see below).
 *   killuid  kill every process of one uid, atomically, as that uid.
 *   version  print the protocol version.
 *
 * Nothing here knows the game.  Every failure is reported with its stage and
 * errno so the judge can explain it (IE) or name an unreachable program.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROTOCOL "ocean-judge-sandbox-helper 1"
#define MAX_LIST 16

#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct rl { int res; rlim_t val; };

struct opts {
    int status_fd;
    const char *cgroups[MAX_LIST]; int ncg;          /* joined by the helper itself */
    const char *child_cgroups[MAX_LIST]; int nccg;   /* joined by the program only (cpu) */
    int orig_nice;
    int nsfds[MAX_LIST]; int nns;
    const char *dir;
    long uid, gid;
    struct rl rls[MAX_LIST]; int nrl;
    long nproc_extra;            /* >= 0: RLIMIT_NPROC = tasks of own uid now + this */
    int oom_protect;
    int tree_only;               /* -t: kill the program's tree only, never its whole uid */
    int check;
    int argcheck[MAX_LIST]; int nargcheck;
    int cpu;                     /* >= 0: the one core the run may use */
    int set_nice, prog_nice;     /* set_nice: the program's nice value (root: below 0) */
    int ready_fd;                /* the child's end of the ready socket */
    int go_fd;                   /* -W: armed ahead of its run; the core comes here */
    char **argv;
};

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;
        }
        buf += n; len -= (size_t)n;
    }
}

/* One-line, printable message: newlines and '|' would break the records. */
static void sanitize(char *s) {
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '|' || !isprint((unsigned char)*s)) *s = ' ';
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int err = errno;
    close(fd);
    if (n != (ssize_t)len) { errno = n < 0 ? err : EIO; return -1; }
    return 0;
}

static int rlimit_by_name(const char *name) {
    static const struct { const char *n; int r; } tab[] = {
        {"fsize", RLIMIT_FSIZE}, {"nproc", RLIMIT_NPROC}, {"core", RLIMIT_CORE},
        {"nofile", RLIMIT_NOFILE}, {"stack", RLIMIT_STACK}, {"cpu", RLIMIT_CPU},
        {"as", RLIMIT_AS}, {"data", RLIMIT_DATA}, {"memlock", RLIMIT_MEMLOCK},
        {"msgqueue", RLIMIT_MSGQUEUE}, {"locks", RLIMIT_LOCKS},
        {"sigpending", RLIMIT_SIGPENDING}, {"rtprio", RLIMIT_RTPRIO},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(tab[i].n, name) == 0) return tab[i].r;
    return -1;
}

static void usage(const char *why) {
    fprintf(stderr, "wrapper: bad arguments: %s\n", why);
    exit(2);
}

static long parse_long(const char *s, const char *what) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s) usage(what);
    return v;
}

/* ------------------------------------------------------------------ run */

/* Reporting channel from the forked child to the helper (CLOEXEC pipe). */
static int g_errpipe = -1;

static void child_fail(const char *stage, int err, const char *fmt, ...) {
    char msg[1400], line[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sanitize(msg);
    int n = snprintf(line, sizeof line, "%s|%d|%s", stage, err, msg);
    if (n > 0) write_all(g_errpipe, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
    _exit(127);
}

/* Where execvp would find argv0 (PATH search); copies into out. */
static int resolve_cmd(const char *cmd, char *out, size_t outlen) {
    if (strchr(cmd, '/')) {
        snprintf(out, outlen, "%s", cmd);
        return access(out, F_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char buf[PATH_MAX];
    const char *p = path;
    int found = -1;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len == 0) snprintf(buf, sizeof buf, "./%s", cmd);
        else snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, cmd);
        if (access(buf, X_OK) == 0) { snprintf(out, outlen, "%s", buf); return 0; }
        if (found < 0 && access(buf, F_OK) == 0) { snprintf(out, outlen, "%s", buf); found = 0; }
        if (!colon) break;
        p = colon + 1;
    }
    return found;
}

/* Explain why argv[0] cannot be run by this uid in this view.  Returns 0 if fine. */
static int diagnose(const char *cmd, char *msg, size_t msglen, int *err_out) {
    char path[PATH_MAX];
    if (resolve_cmd(cmd, path, sizeof path) != 0) {
        *err_out = ENOENT;
        if (strchr(cmd, '/'))
            snprintf(msg, msglen, "%s: %s (not present, or a folder on its path is not reachable, "
                     "for uid %ld inside the seat)", cmd, strerror(ENOENT), (long)getuid());
        else
            snprintf(msg, msglen, "%s: not found in PATH=%s", cmd, getenv("PATH") ? getenv("PATH") : "");
        return -1;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        *err_out = errno;
        snprintf(msg, msglen, "%s: %s (for uid %ld inside the seat)", path, strerror(errno), (long)getuid());
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        *err_out = EISDIR;
        snprintf(msg, msglen, "%s: is a folder, not a program", path);
        return -1;
    }
    if (access(path, X_OK) != 0) {
        *err_out = errno;
        snprintf(msg, msglen, "%s: %s: uid %ld cannot execute it (no execute permission, or a "
                 "folder on its path is not reachable)", path, strerror(errno), (long)getuid());
        return -1;
    }
    /* Scripts: the interpreter must be reachable too. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == EACCES) return 0;  /* execute-only binary: fine */
        *err_out = errno;
        snprintf(msg, msglen, "%s: cannot be opened: %s", path, strerror(errno));
        return -1;
    }
    char head[512];
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n >= 2 && head[0] == '#' && head[1] == '!') {
        head[n] = 0;
        char *nl = strchr(head, '\n');
        if (nl) *nl = 0;
        char *s = head + 2;
        while (*s == ' ' || *s == '\t') s++;
        char *interp = s;
        while (*s && *s != ' ' && *s != '\t') s++;
        char *rest = NULL;
        if (*s) { *s++ = 0; while (*s == ' ' || *s == '\t') s++; rest = *s ? s : NULL; }
        if (access(interp, X_OK) != 0) {
            *err_out = errno;
            snprintf(msg, msglen, "%s: the interpreter %s named on its first line cannot be run by "
                     "uid %ld inside the seat: %s", path, interp, (long)getuid(), strerror(errno));
            return -1;
        }
        const char *base = strrchr(interp, '/');
        base = base ? base + 1 : interp;
        if (strcmp(base, "env") == 0 && rest) {
            char word[256];
            snprintf(word, sizeof word, "%s", rest);
            char *sp = strpbrk(word, " \t");
            if (sp) *sp = 0;
            if (word[0] != '-' && strchr(word, '=') == NULL) {
                char ipath[PATH_MAX];
                if (resolve_cmd(word, ipath, sizeof ipath) != 0 || access(ipath, X_OK) != 0) {
                    *err_out = ENOENT;
                    snprintf(msg, msglen, "%s: its first line runs '%s' through env, but '%s' is not "
                             "found (or not executable) in PATH=%s for uid %ld inside the seat",
                             path, word, word, getenv("PATH") ? getenv("PATH") : "", (long)getuid());
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* The program and all it starts inherit the core (-1: not pinned). */
static void pin_core(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        child_fail("affinity", errno, "sched_setaffinity(core %d): %s", cpu, strerror(errno));
}

/* The zygote's scheduling policy as the judge started it (-1: not a zygote's process).
 * A zygote started as SCHED_OTHER runs as SCHED_BATCH (zygote_main): asking it for a
 * run wakes it without preempting the judge, and an armed run's set-up (the clone,
 * its joins, the fork, the child's set-up) takes the CPU the judge leaves rather than
 * the judge's own.  What runs when a run is under way has the judge's policy again:
 * the helper that times and reaps the program from its fork on, the child from just
 * before its go, so the program starts at once on the go and runs as a one-shot
 * helper's program does.  A one-shot helper is not a zygote's: nothing changes. */
static int z_policy = -1;

static void sched_normal(void) {
    if (z_policy == SCHED_OTHER && sched_getscheduler(0) == SCHED_BATCH) {
        struct sched_param sp = { 0 };
        sched_setscheduler(0, SCHED_OTHER, &sp);
    }
}

static void child_main(const struct opts *o) {
    sigset_t none;
    sigemptyset(&none);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    /* Armed, it may wait long for its go: it must not outlive its helper (set again,
     * below, after the credentials change, which clears it). */
    if (o->go_fd >= 0) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);

    if (o->oom_protect) {
        write_file("/proc/self/oom_score_adj", "0");
        setpriority(PRIO_PROCESS, 0, o->orig_nice);
    }
    /* Ahead of ordinary work on its core (best effort: only root may go below 0). */
    if (o->set_nice) setpriority(PRIO_PROCESS, 0, o->prog_nice);
    /* The CPU group and the cpuset hold the program only, so the helper is never
     * starved by a program with many busy processes when it must kill them. */
    for (int i = 0; i < o->nccg; i++) {
        char pidtxt[32];
        snprintf(pidtxt, sizeof pidtxt, "%d", (int)getpid());
        if (write_file(o->child_cgroups[i], pidtxt) != 0)
            child_fail("cgroup", errno, "cannot join %s: %s", o->child_cgroups[i], strerror(errno));
    }
    if (o->go_fd < 0) pin_core(o->cpu);
    if (setsid() < 0) child_fail("setsid", errno, "setsid: %s", strerror(errno));
    if (o->set_nice) {
        /* A new session is a new autogroup, which the scheduler weighs as one task at
         * nice 0 whatever the nice of its tasks: give it the program's (best effort). */
        char txt[16];
        snprintf(txt, sizeof txt, "%d", o->prog_nice);
        write_file("/proc/self/autogroup", txt);
    }
    for (int i = 0; i < o->nns; i++)
        if (setns(o->nsfds[i], 0) != 0)
            child_fail("setns", errno, "setns(fd %d): %s", o->nsfds[i], strerror(errno));
    if (o->dir && chdir(o->dir) != 0)
        child_fail("chdir", errno, "chdir(%s): %s", o->dir, strerror(errno));
    for (int i = 0; i < o->nrl; i++) {
        struct rlimit r = { o->rls[i].val, o->rls[i].val };
        if (setrlimit(o->rls[i].res, &r) != 0)
            child_fail("rlimit", errno, "setrlimit(%d): %s", o->rls[i].res, strerror(errno));
    }
    if (o->go_fd >= 0) {
        /* Armed ahead of the run: everything above is done; wait for the judge's go,
         * which names the run's core ("-1": none).  EOF: the run was called off. */
        sched_normal();  /* the go wakes it at once, ahead of the judge */
        char go[32];
        size_t got = 0;
        for (;;) {
            ssize_t n = read(o->go_fd, go + got, sizeof go - 1 - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) _exit(0);
            got += (size_t)n;
            if (memchr(go, '\n', got) || got >= sizeof go - 1) break;
        }
        go[got] = 0;
        close(o->go_fd);
        long c = strtol(go, NULL, 10);
        if (c >= CPU_SETSIZE) _exit(0);
        pin_core(c >= 0 ? (int)c : -1);
    }
    /* Ready: the slow set-up is over (a cgroup v1 join waits for an RCU grace period,
     * about 10 ms on a machine that moved no task for a while); the program's clock
     * starts now.  What is left is a few system calls and the exec. */
    long long ready_ns = now_ns();   /* read here: the helper may be scheduled later */
    while (send(o->ready_fd, &ready_ns, sizeof ready_ns, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
    close(o->ready_fd);
    if (o->gid >= 0) {
        if (setgroups(0, NULL) != 0) child_fail("setgroups", errno, "setgroups: %s", strerror(errno));
        if (setresgid((gid_t)o->gid, (gid_t)o->gid, (gid_t)o->gid) != 0)
            child_fail("setgid", errno, "setresgid(%ld): %s", o->gid, strerror(errno));
    }
    if (o->uid >= 0 && setresuid((uid_t)o->uid, (uid_t)o->uid, (uid_t)o->uid) != 0)
        child_fail("setuid", errno, "setresuid(%ld): %s", o->uid, strerror(errno));
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        child_fail("no_new_privs", errno, "prctl(NO_NEW_PRIVS): %s", strerror(errno));
    /* Credential changes clear the parent-death signal: set it last. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        child_fail("pdeathsig", errno, "prctl(PDEATHSIG): %s", strerror(errno));
    /* Nothing of the judge or the helper leaks into the program. */
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int fd = 3; fd < 65536; fd++)
            if (fd != g_errpipe) close(fd);
    }
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (o->check) {
        char msg[1200];
        int err = 0;
        if (diagnose(o->argv[0], msg, sizeof msg, &err) != 0) child_fail("check", err, "%s", msg);
        for (int i = 0; i < o->nargcheck; i++) {
            const char *a = o->argv[o->argcheck[i]];
            if (access(a, R_OK) != 0)
                child_fail("check", errno, "argument %d (%s) exists for the judge but uid %ld "
                           "cannot read it inside the seat: %s", o->argcheck[i], a,
                           (long)getuid(), strerror(errno));
        }
        _exit(0);
    }
    /* execv, not execvp: execvp would run a file without a #! line through
     * /bin/sh, turning "not a program" into a shell syntax error every turn. */
    char prog[PATH_MAX];
    if (resolve_cmd(o->argv[0], prog, sizeof prog) == 0) execv(prog, o->argv);
    else errno = ENOENT;
    int e = errno;
    if (e == ENOEXEC)
        child_fail("exec", e, "%s: not a program this machine can run (wrong format, or a script "
                   "without a #! line)", prog);
    char msg[1200];
    int err = e;
    if (diagnose(o->argv[0], msg, sizeof msg, &err) != 0) child_fail("exec", err, "%s", msg);
    child_fail("exec", e, "%s: %s", o->argv[0], strerror(e));
}

/* Count tasks (threads included) of the real uid: RLIMIT_NPROC counts those. */
static long count_uid_tasks(uid_t uid) {
    DIR *d = opendir("/proc");
    if (!d) return -1;
    long total = 0;
    struct dirent *e;
    char path[64];
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        struct stat st;
        snprintf(path, sizeof path, "/proc/%s", e->d_name);
        if (stat(path, &st) != 0 || st.st_uid != uid) continue;
        snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
        DIR *t = opendir(path);
        if (!t) { total++; continue; }
        struct dirent *te;
        while ((te = readdir(t)))
            if (isdigit((unsigned char)te->d_name[0])) total++;
        closedir(t);
    }
    closedir(d);
    return total;
}

/* SIGKILL every direct child; orphans of killed processes come back to us. */
static int kill_children(void) {
    char path[64], buf[8192];
    int killed = 0;
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n >= 0) {
            buf[n] = 0;
            char *s = buf, *end;
            for (;;) {
                long pid = strtol(s, &end, 10);
                if (end == s) break;
                if (pid > 1) { kill((pid_t)pid, SIGKILL); killed++; }
                s = end;
            }
            return killed;
        }
    }
    /* No children file (CONFIG_PROC_CHILDREN off): scan /proc for our children. */
    DIR *d = opendir("/proc");
    if (!d) return 0;
    struct dirent *e;
    pid_t self = getpid();
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int sfd = open(path, O_RDONLY | O_CLOEXEC);
        if (sfd < 0) continue;
        ssize_t n = read(sfd, buf, sizeof buf - 1);
        close(sfd);
        if (n <= 0) continue;
        buf[n] = 0;
        char *rp = strrchr(buf, ')');
        int ppid = 0;
        char state;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == self) {
            kill((pid_t)atol(e->d_name), SIGKILL);
            killed++;
        }
    }
    closedir(d);
    return killed;
}

/* As the seat's uid (and nothing else), kill(-1): every process of that uid,
 * atomically with respect to fork.  Returns 0 on success. */
static int kill_uid(long uid, long gid) {
    pid_t k = fork();
    if (k < 0) return -1;
    if (k == 0) {
        if (setgroups(0, NULL) != 0) _exit(1);
        if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0) _exit(1);
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) _exit(1);
        if (getuid() == 0 || geteuid() == 0) _exit(1);
        kill(-1, SIGKILL);
        _exit(0);
    }
    int st;
    while (waitpid(k, &st, 0) < 0 && errno == EINTR) {}
    return (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? 0 : -1;
}

static int run_main(struct opts *o) {
    FILE *rec = NULL;
    long long start = now_ns(), main_end = 0;
    pid_t child = -1;
    int main_status = -1, killed = 0, main_first = 0;
    const char *kill_method = "none";
    char errline[1600] = "";
    char setup_stage[64] = "", setup_msg[512] = "";
    int setup_err = 0;

    /* A run made on its turn (not armed) is the turn's critical path: the judge's policy
     * again from here.  An armed one stays SCHED_BATCH until its fork (its child, until
     * its go). */
    if (o->go_fd < 0) sched_normal();
    int status_fd = o->status_fd;
    if (status_fd < 0) usage("-s STATUS_FD is required");
    fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    for (int i = 0; i < o->nns; i++) fcntl(o->nsfds[i], F_SETFD, FD_CLOEXEC);
    if (o->go_fd >= 0) fcntl(o->go_fd, F_SETFD, FD_CLOEXEC);

    /* Signals the loop waits for; blocked so sigtimedwait() sees them without races. */
    sigset_t wait_set;
    sigemptyset(&wait_set);
    sigaddset(&wait_set, SIGCHLD);
    sigaddset(&wait_set, SIGTERM);
    sigaddset(&wait_set, SIGINT);
    sigaddset(&wait_set, SIGHUP);
    sigprocmask(SIG_BLOCK, &wait_set, NULL);

    pid_t judge = getppid();
    setsid();
    if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) == 0 && getppid() != judge)
        kill(getpid(), SIGTERM);   /* the judge is already gone: stays pending, handled below */
    /* Best effort (needs CAP_SYS_RESOURCE): the OOM killer picks the biggest
     * process anyway, which is never this small helper. */
    if (o->oom_protect) {
        write_file("/proc/self/oom_score_adj", "-1000");
        /* Also best effort: the helper must run promptly when it has to kill,
         * ahead of the program even where it shares the program's core. */
        errno = 0;
        o->orig_nice = getpriority(PRIO_PROCESS, 0);
        if (errno == 0) setpriority(PRIO_PROCESS, 0, -15);
    }
    for (int i = 0; i < o->ncg; i++) {
        char pidtxt[32];
        snprintf(pidtxt, sizeof pidtxt, "%d", (int)getpid());
        if (write_file(o->cgroups[i], pidtxt) != 0) {
            snprintf(setup_stage, sizeof setup_stage, "cgroup");
            setup_err = errno;
            snprintf(setup_msg, sizeof setup_msg, "cannot join %s: %s", o->cgroups[i], strerror(errno));
            goto report;
        }
    }
    if (o->nproc_extra >= 0) {
        long n = count_uid_tasks(getuid());
        if (n >= 0 && o->nrl < MAX_LIST) {
            o->rls[o->nrl].res = RLIMIT_NPROC;
            o->rls[o->nrl].val = (rlim_t)(n + o->nproc_extra);
            o->nrl++;
        }
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        snprintf(setup_stage, sizeof setup_stage, "subreaper");
        setup_err = errno;
        snprintf(setup_msg, sizeof setup_msg, "prctl(CHILD_SUBREAPER): %s", strerror(errno));
        goto report;
    }

    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        snprintf(setup_stage, sizeof setup_stage, "pipe");
        setup_err = errno;
        snprintf(setup_msg, sizeof setup_msg, "pipe2: %s", strerror(errno));
        goto report;
    }
    int rs[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rs) != 0) {
        snprintf(setup_stage, sizeof setup_stage, "pipe");
        setup_err = errno;
        snprintf(setup_msg, sizeof setup_msg, "socketpair: %s", strerror(errno));
        goto report;
    }
    start = now_ns();
    child = fork();
    if (child < 0) {
        snprintf(setup_stage, sizeof setup_stage, "fork");
        setup_err = errno;
        snprintf(setup_msg, sizeof setup_msg, "fork: %s", strerror(errno));
        goto report;
    }
    if (child == 0) {
        close(ep[0]);
        close(rs[0]);
        o->ready_fd = rs[1];
        close(status_fd);
        g_errpipe = ep[1];
        child_main(o);
        _exit(127);
    }
    /* Armed: from here it times the program, prompt as a one-shot helper is. */
    if (o->go_fd >= 0) sched_normal();
    close(ep[1]);
    close(rs[1]);
    if (o->go_fd >= 0) close(o->go_fd);   /* the child's alone: the judge's go fails once it is gone */
    {
        /* The clock starts when the child's set-up is over (or it failed: EOF). */
        long long ready_ns = 0;
        ssize_t got;
        while ((got = recv(rs[0], &ready_ns, sizeof ready_ns, MSG_WAITALL)) < 0 && errno == EINTR) {}
        close(rs[0]);
        /* The child's own reading: this helper may have been scheduled well after it. */
        start = got == (ssize_t)sizeof ready_ns && ready_ns >= start ? ready_ns : now_ns();
    }
    {
        /* First status line: when the program's clock started (the judge times it from
         * here, so its own delay in starting this helper never counts). */
        char line[64];
        int n = snprintf(line, sizeof line, "start_ns=%lld\n", start);
        if (n > 0) write_all(status_fd, line, (size_t)n);
    }
    {
        size_t got = 0;
        for (;;) {
            ssize_t n = read(ep[0], errline + got, sizeof errline - 1 - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
            if (got >= sizeof errline - 1) break;
        }
        errline[got] = 0;
        close(ep[0]);
    }

    /* Reap everything until no descendant is left; kill all on request. */
    int term = 0;
    for (;;) {
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
            if (p == child) { main_status = st; main_end = now_ns(); main_first = !term; }
        }
        if (p < 0 && errno == ECHILD) break;
        if (term) {
            if (!killed && o->uid >= 0 && !o->tree_only) {
                if (kill_uid(o->uid, o->gid >= 0 ? o->gid : o->uid) == 0) kill_method = "uid";
                else kill_method = "children";
            } else if (!killed) {
                kill_method = "children";
            }
            killed = 1;
            kill_children();
        }
        struct timespec tick = { 0, 10 * 1000 * 1000 };
        siginfo_t si;
        int sig = sigtimedwait(&wait_set, &si, term ? &tick : NULL);
        if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) term = 1;
    }

report:;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_CHILDREN, &ru);
    rec = fdopen(status_fd, "w");
    if (!rec) return 3;
    fprintf(rec, "protocol=%s\n", PROTOCOL);
    if (setup_stage[0]) {
        sanitize(setup_msg);
        fprintf(rec, "setup_stage=%s\nsetup_errno=%d\nsetup_error=%s\n", setup_stage, setup_err, setup_msg);
    }
    if (errline[0]) {
        /* stage|errno|message */
        char *a = errline, *b = strchr(a, '|');
        char *c = b ? strchr(b + 1, '|') : NULL;
        if (b && c) {
            *b = 0; *c = 0;
            fprintf(rec, "child_stage=%s\nchild_errno=%s\nchild_error=%s\n", a, b + 1, c + 1);
        } else {
            sanitize(errline);
            fprintf(rec, "child_stage=unknown\nchild_errno=0\nchild_error=%s\n", errline);
        }
    }
    fprintf(rec, "main_pid=%d\nmain_status=%d\nstart_ns=%lld\nmain_end_ns=%lld\nend_ns=%lld\n",
            (int)child, main_status, start, main_end, now_ns());
    fprintf(rec, "main_before_kill=%d\n", main_first);
    fprintf(rec, "utime_us=%lld\nstime_us=%lld\nmaxrss_kb=%ld\nkilled=%d\nkill_method=%s\n",
            (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
            (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec,
            ru.ru_maxrss, killed, kill_method);
    fprintf(rec, "end=1\n");
    fclose(rec);
    return setup_stage[0] ? 3 : 0;
}

/* --------------------------------------------------------------- holder */

static void hfail(const char *what, const char *path) {
    fprintf(stderr, "holder: %s%s%s: %s\n", what, path ? " " : "", path ? path : "", strerror(errno));
    exit(1);
}

static void mkdirs(const char *path, mode_t mode) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, mode) != 0 && errno != EEXIST) hfail("mkdir", buf);
        *p = '/';
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST) hfail("mkdir", buf);
}

static void bind_mount(const char *src, const char *dst, int readonly, unsigned long extra, int rec) {
    if (mount(src, dst, NULL, MS_BIND | (rec ? MS_REC : 0), NULL) != 0) hfail("bind mount", src);
    unsigned long fl = MS_REMOUNT | MS_BIND | MS_NOSUID | extra | (readonly ? MS_RDONLY : 0);
    if (mount(NULL, dst, NULL, fl, NULL) != 0) hfail("remount", dst);
}

/* Is `path` equal to `dir` or below it? */
static int is_under(const char *path, const char *dir) {
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

static int holder_main(int argc, char **argv) {
    const char *seat = NULL, *tmp = NULL, *stage = NULL, *rw = NULL, *host = "seat";
    int view = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-S") && i + 1 < argc) seat = argv[++i];
        else if (!strcmp(argv[i], "-T") && i + 1 < argc) tmp = argv[++i];
        else if (!strcmp(argv[i], "-R") && i + 1 < argc) stage = argv[++i];
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) host = argv[++i];
        else if (!strcmp(argv[i], "-W") && i + 1 < argc) rw = argv[++i];
        else if (!strcmp(argv[i], "-V")) view = 1;
        else usage(argv[i]);
    }
    if (view && (!seat || !tmp || !stage || seat[0] != '/' || stage[0] != '/'))
        usage("holder -V needs absolute -S SEAT -T TMP -R STAGING");
    if (rw && (!view || !is_under(rw, seat)))
        usage("holder -W RW needs -V and a folder inside -S SEAT");

    int flags = CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | (view ? CLONE_NEWNS : 0);
    /* Every mount below happens only inside the new mount namespace: if
     * unshare fails we stop before touching anything. */
    if (unshare(flags) != 0) hfail("unshare", NULL);
    if (sethostname(host, strlen(host)) != 0) hfail("sethostname", NULL);

    if (view) {
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) hfail("make / private", NULL);
        if (mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=4096") != 0)
            hfail("mount tmpfs", stage);
        char dst[PATH_MAX], lnk[PATH_MAX];
        static const char *sys_dirs[] = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
                                         "etc", "opt", NULL};
        for (int i = 0; sys_dirs[i]; i++) {
            char src[64];
            struct stat st;
            snprintf(src, sizeof src, "/%s", sys_dirs[i]);
            snprintf(dst, sizeof dst, "%s/%s", stage, sys_dirs[i]);
            if (lstat(src, &st) != 0) continue;
            if (S_ISLNK(st.st_mode)) {
                ssize_t n = readlink(src, lnk, sizeof lnk - 1);
                if (n < 0) hfail("readlink", src);
                lnk[n] = 0;
                if (symlink(lnk, dst) != 0) hfail("symlink", dst);
            } else if (S_ISDIR(st.st_mode)) {
                if (mkdir(dst, 0755) != 0) hfail("mkdir", dst);
                bind_mount(src, dst, 1, MS_NODEV, 1);
            }
        }
        /* /dev: a few harmless nodes only. */
        snprintf(dst, sizeof dst, "%s/dev", stage);
        if (mkdir(dst, 0755) != 0) hfail("mkdir", dst);
        if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64") != 0)
            hfail("mount tmpfs", dst);
        static const char *nodes[] = {"null", "zero", "full", "random", "urandom", NULL};
        for (int i = 0; nodes[i]; i++) {
            char src[64];
            snprintf(src, sizeof src, "/dev/%s", nodes[i]);
            snprintf(dst, sizeof dst, "%s/dev/%s", stage, nodes[i]);
            int fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
            if (fd < 0) hfail("create", dst);
            close(fd);
            if (mount(src, dst, NULL, MS_BIND, NULL) != 0) hfail("bind mount", src);
        }
        static const char *links[][2] = {{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
                                          {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
                                          {NULL, NULL}};
        for (int i = 0; links[i][0]; i++) {
            snprintf(dst, sizeof dst, "%s/dev/%s", stage, links[i][0]);
            if (symlink(links[i][1], dst) != 0) hfail("symlink", dst);
        }
        /* /proc: a fresh instance where other users' processes are invisible. */
        snprintf(dst, sizeof dst, "%s/proc", stage);
        if (mkdir(dst, 0555) != 0) hfail("mkdir", dst);
        if (mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible") != 0 &&
            mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            hfail("mount proc", dst);
        snprintf(dst, sizeof dst, "%s/sys", stage);
        if (mkdir(dst, 0555) != 0) hfail("mkdir", dst);
        bind_mount("/sys", dst, 1, MS_NODEV | MS_NOEXEC, 0);
        /* Scratch folders: the seat's private tmp, unless the seat itself lives there. */
        static const char *scratch[] = {"/tmp", "/var/tmp", "/dev/shm", "/run", NULL};
        for (int i = 0; scratch[i]; i++) {
            snprintf(dst, sizeof dst, "%s%s", stage, scratch[i]);
            mkdirs(dst, 0755);
            if (strcmp(scratch[i], "/run") != 0 && !is_under(seat, scratch[i]) && !is_under(scratch[i], seat))
                bind_mount(tmp, dst, 0, MS_NODEV, 0);
        }
        /* The seat's own folder, at the same path, writable. */
        snprintf(dst, sizeof dst, "%s%s", stage, seat);
        mkdirs(dst, 0755);
        bind_mount(seat, dst, 0, MS_NODEV, 0);
        /* The seat's writable folders: a mount of their own inside it (a tmpfs), which
         * the bind above does not carry. */
        if (rw) {
            snprintf(dst, sizeof dst, "%s%s", stage, rw);
            bind_mount(rw, dst, 0, MS_NODEV, 0);
        }
        snprintf(dst, sizeof dst, "%s/dev", stage);
        if (mount(NULL, dst, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) != 0)
            hfail("remount ro", dst);
        if (chdir(stage) != 0) hfail("chdir", stage);
        if (syscall(SYS_pivot_root, ".", ".") != 0) hfail("pivot_root", stage);
        if (umount2(".", MNT_DETACH) != 0) hfail("umount old root", NULL);
        if (chdir("/") != 0) hfail("chdir", "/");
        if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
            hfail("remount / ro", NULL);
    }
    write_all(1, "ready\n", 6);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0 || errno == EINTR) {}
    return 0;
}

/* The options of "run" (argv[0] the helper, argv[1] "run"): exits 2 when they are bad. */
static void parse_run(int argc, char **argv, struct opts *o) {
    memset(o, 0, sizeof *o);
    o->status_fd = -1; o->uid = -1; o->gid = -1; o->nproc_extra = -1; o->cpu = -1;
    o->go_fd = -1;
    int i = 2;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "-o")) { o->oom_protect = 1; continue; }
        if (!strcmp(a, "-C")) { o->check = 1; continue; }
        if (!strcmp(a, "-t")) { o->tree_only = 1; continue; }
        if (i + 1 >= argc) usage(a);
        const char *v = argv[++i];
        if (!strcmp(a, "-s")) o->status_fd = (int)parse_long(v, "-s");
        else if (!strcmp(a, "-c")) { if (o->ncg >= MAX_LIST) usage("too many -c"); o->cgroups[o->ncg++] = v; }
        else if (!strcmp(a, "-j")) { if (o->nccg >= MAX_LIST) usage("too many -j"); o->child_cgroups[o->nccg++] = v; }
        else if (!strcmp(a, "-n")) { if (o->nns >= MAX_LIST) usage("too many -n"); o->nsfds[o->nns++] = (int)parse_long(v, "-n"); }
        else if (!strcmp(a, "-d")) o->dir = v;
        else if (!strcmp(a, "-W")) o->go_fd = (int)parse_long(v, "-W");
        else if (!strcmp(a, "-u")) o->uid = parse_long(v, "-u");
        else if (!strcmp(a, "-g")) o->gid = parse_long(v, "-g");
        else if (!strcmp(a, "-N")) o->nproc_extra = parse_long(v, "-N");
        else if (!strcmp(a, "-P")) {
            long n = parse_long(v, "-P");
            if (n < -20 || n > 19) usage("-P NICE out of range");
            o->set_nice = 1;
            o->prog_nice = (int)n;
        }
        else if (!strcmp(a, "-a")) {
            long c = parse_long(v, "-a");
            if (c < 0 || c >= CPU_SETSIZE) usage("-a CORE out of range");
            o->cpu = (int)c;
        }
        else if (!strcmp(a, "-A")) { if (o->nargcheck >= MAX_LIST) usage("too many -A"); o->argcheck[o->nargcheck++] = (int)parse_long(v, "-A"); }
        else if (!strcmp(a, "-r")) {
            char name[32];
            const char *eq = strchr(v, '=');
            if (!eq || (size_t)(eq - v) >= sizeof name || o->nrl >= MAX_LIST) usage("-r NAME=VALUE");
            memcpy(name, v, (size_t)(eq - v));
            name[eq - v] = 0;
            int res = rlimit_by_name(name);
            if (res < 0) usage("unknown rlimit");
            o->rls[o->nrl].res = res;
            o->rls[o->nrl].val = !strcmp(eq + 1, "inf") ? RLIM_INFINITY : (rlim_t)strtoull(eq + 1, NULL, 10);
            o->nrl++;
        } else usage(a);
    }
    if (i >= argc) usage("no command after --");
    o->argv = argv + i;
    int nargs = argc - i;
    for (int k = 0; k < o->nargcheck; k++)
        if (o->argcheck[k] <= 0 || o->argcheck[k] >= nargs) usage("-A index out of range");
    if ((o->uid == 0) || (o->gid == 0)) usage("refusing to run a program as root");
}

/* --------------------------------------------------------------- zygote */

/*
 * zygote: a seat's exec helper that lives as long as the seat (the judge's
 * choice when it can: no exec of this helper and no Popen in the judge per run).
 * It waits on fd 0, one end of a SOCK_SEQPACKET socket pair, for requests:
 *
 *   the words of a "run" command line after "run" (the same options: -s 3 and
 *   -n 4, 5, ... name the fds below), each NUL-terminated, preceded by their
 *   count, then the program's environment, one NUL-terminated VAR=value each;
 *   with SCM_RIGHTS: the status pipe, stdout, stderr, then the namespace fds.
 *
 * For each it makes, with clone(CLONE_PARENT), a process that is the judge's
 * child, not its own, and becomes exactly what "wrapper run" would be (the fds
 * moved to 0 = /dev/null, 1, 2, 3 = status, 4... = namespaces, nothing else
 * open, the request's environment, the zygote's priority, OOM score and, once its
 * run is under way, scheduling policy undone),
 * so everything a one-shot helper does per run is still done per run, in a
 * fresh process, and the judge watches, signals and reaps it as its own child,
 * as it does a one-shot helper: its death signal (PR_SET_PDEATHSIG) is on the
 * judge, and the zygote's death does not touch a run going on.  The reply is
 * "start PID", or "error ERRNO message".  At EOF (the seat closed, or the judge
 * died and the kernel closed its end) the zygote exits.
 */

#define Z_MAX_FDS (3 + MAX_LIST)
static char zbuf[1 << 20];
/* The zygote's own priority and OOM score before -o changed them: each run's process
 * gets them back, so it starts as a one-shot helper started by the judge would. */
static int z_nice;
static char z_oom[16] = "";

static void z_reply(int ctl, const char *text) {
    while (send(ctl, text, strlen(text), MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

/* In the forked process: become "wrapper run" for this request.  Never returns. */
static void z_become_run(char *data, size_t len, const int *fds, int nfds, int devnull) {
    char *words[4096 + 2];
    char *p = data, *end = data + len;
    long nwords = strtol(p, NULL, 10);
    p += strlen(p) + 1;
    if (nwords <= 0 || nwords > 4096) _exit(2);
    int argc = 0;
    words[argc++] = "wrapper";
    words[argc++] = "run";
    for (long k = 0; k < nwords; k++) {
        if (p >= end) _exit(2);
        words[argc++] = p;
        p += strlen(p) + 1;
    }
    words[argc] = NULL;
    static char *env[4096 + 1];
    int nenv = 0;
    while (p < end && nenv < 4096) {
        env[nenv++] = p;
        p += strlen(p) + 1;
    }
    env[nenv] = NULL;
    /* Out of the way first, then into place: 0 /dev/null, 1 stdout, 2 stderr, 3 status, 4... */
    int high[Z_MAX_FDS];
    for (int k = 0; k < nfds; k++)
        if ((high[k] = fcntl(fds[k], F_DUPFD, 64)) < 0) _exit(2);
    if (dup2(devnull, 0) < 0 || dup2(high[1], 1) < 0 || dup2(high[2], 2) < 0 || dup2(high[0], 3) < 0)
        _exit(2);
    for (int k = 3; k < nfds; k++)
        if (dup2(high[k], k + 1) < 0) _exit(2);
    if (syscall(SYS_close_range, (unsigned)nfds + 1, ~0U, 0) != 0)
        for (int fd = nfds + 1; fd < 65536; fd++) close(fd);
    environ = env;
    if (z_oom[0]) {
        write_file("/proc/self/oom_score_adj", z_oom);
        setpriority(PRIO_PROCESS, 0, z_nice);
    }
    struct opts o;
    parse_run(argc, words, &o);
    _exit(run_main(&o));
}

static int zygote_main(int argc, char **argv) {
    int ctl = 0;
    setsid();  /* the judge's terminal signals do not reach it; its EOF does */
    if (argc > 2 && !strcmp(argv[2], "-o")) {
        /* As the one-shot helper does for its run (best effort, root): never the OOM
         * killer's pick, and prompt to start a run on a busy machine. */
        int fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t n = read(fd, z_oom, sizeof z_oom - 1);
            close(fd);
            z_oom[n > 0 ? n : 0] = 0;
        }
        errno = 0;
        z_nice = getpriority(PRIO_PROCESS, 0);
        if (errno != 0) z_oom[0] = 0;
        if (z_oom[0]) {
            write_file("/proc/self/oom_score_adj", "-1000");
            setpriority(PRIO_PROCESS, 0, -15);
        }
    }
    /* No wake-up preemption (sched_normal() says why); best effort, and only from the
     * default policy (a judge run as SCHED_IDLE, BATCH or real-time keeps its own). */
    z_policy = sched_getscheduler(0);
    if (z_policy == SCHED_OTHER) {
        struct sched_param sp = { 0 };
        if (sched_setscheduler(0, SCHED_BATCH, &sp) != 0) z_policy = -1;
    }
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) return 1;
    for (;;) {
        union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int) * Z_MAX_FDS)]; } c;
        struct iovec iov = { zbuf, sizeof zbuf - 1 };
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = c.buf;
        m.msg_controllen = sizeof c.buf;
        ssize_t got = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;  /* the seat closed, or the judge is gone */
        int fds[Z_MAX_FDS], nfds = 0;
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
            if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
            int cnt = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int k = 0; k < cnt; k++) {
                int fd;
                memcpy(&fd, CMSG_DATA(h) + k * sizeof(int), sizeof fd);
                if (nfds < Z_MAX_FDS) fds[nfds++] = fd;
                else close(fd);
            }
        }
        char msg[600];
        if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || nfds < 3) {
            snprintf(msg, sizeof msg, "error %d bad request (%d fds)", EINVAL, nfds);
            z_reply(ctl, msg);
        } else {
            zbuf[got] = 0;
            /* Like fork(), but the new process is the judge's child (a raw clone: this
             * process is single-threaded and holds no lock of the C library). */
            long pid = syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), NULL, NULL, NULL, 0);
            if (pid == 0) z_become_run(zbuf, (size_t)got, fds, nfds, devnull);
            if (pid < 0) {
                int e = errno;
                snprintf(msg, sizeof msg, "error %d clone: %s", e, strerror(e));
            } else {
                snprintf(msg, sizeof msg, "start %ld", pid);
            }
            z_reply(ctl, msg);
        }
        for (int k = 0; k < nfds; k++) close(fds[k]);
    }
}

/* --------------------------------------------------------------- main */

int main(int argc, char **argv) {
    if (argc < 2) usage("no mode");
    if (!strcmp(argv[1], "version")) { puts(PROTOCOL); return 0; }
    if (!strcmp(argv[1], "holder")) return holder_main(argc, argv);
    if (!strcmp(argv[1], "zygote")) return zygote_main(argc, argv);
    if (!strcmp(argv[1], "killuid")) {
        if (argc != 4) usage("killuid UID GID");
        long uid = parse_long(argv[2], "uid"), gid = parse_long(argv[3], "gid");
        if (uid <= 0 || gid <= 0) usage("killuid needs a non-root uid and gid");
        if (setgroups(0, NULL) != 0 || setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0 ||
            setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) {
            fprintf(stderr, "killuid: cannot become uid %ld: %s\n", uid, strerror(errno));
            return 1;
        }
        if (geteuid() == 0) return 1;
        kill(-1, SIGKILL);
        return 0;
    }
    if (strcmp(argv[1], "run") != 0) usage(argv[1]);

    struct opts o;
    parse_run(argc, argv, &o);
    return run_main(&o);
}
