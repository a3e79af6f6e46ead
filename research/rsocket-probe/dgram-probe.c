// SPDX-License-Identifier: Apache-2.0
// Probe (issue 51): do librdmacm 44's datagram rsockets work on rxe? Two SOCK_DGRAM rsockets
// bound to ADDR (argv[1]) exchange a datagram with rsendto/rrecvfrom, then rrecvmsg with two
// iovecs, then rsendmsg in a child process (rdma-core 44 routes it to the stream path), then
// rselect with a zero timeout. Every wait is non-blocking with a deadline (no rpoll timeout:
// rdma-core 44 leaks its poller count when one expires).
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <rdma/rsocket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int dgram(const char *addr, int port) {
    int fd = rsocket(AF_INET, SOCK_DGRAM, 0);
    printf("rsocket(SOCK_DGRAM) = %d errno %d (%s)\n", fd, fd < 0 ? errno : 0, fd < 0 ? strerror(errno) : "");
    if (fd < 0) exit(2);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, addr, &sa.sin_addr);
    int r = rbind(fd, (struct sockaddr *) &sa, sizeof sa);
    printf("rbind(%s:%d) = %d errno %d (%s)\n", addr, port, r, r ? errno : 0, r ? strerror(errno) : "");
    if (r) exit(2);
    r = rfcntl(fd, F_SETFL, rfcntl(fd, F_GETFL, 0) | O_NONBLOCK);
    printf("rfcntl(O_NONBLOCK) = %d\n", r);
    return fd;
}

static ssize_t await_recv(int fd, char *buf, size_t len, struct sockaddr_in *from, double timeout) {
    double start = now();
    socklen_t fl = sizeof *from;
    long spins = 0;
    for (;;) {
        ssize_t n = rrecvfrom(fd, buf, len, 0, (struct sockaddr *) from, &fl);
        if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            printf("rrecvfrom = %zd errno %d (%s) after %.3f s, %ld tries\n", n, n < 0 ? errno : 0,
                   n < 0 ? strerror(errno) : "", now() - start, spins);
            return n;
        }
        if (now() - start > timeout) {
            printf("rrecvfrom: nothing within %.0f s (%ld tries, last errno %d)\n", timeout, spins, errno);
            return -1;
        }
        spins++;
        usleep(1000);
    }
}

int main(int argc, char **argv) {
    const char *addr = argc > 1 ? argv[1] : "10.200.0.1";
    setvbuf(stdout, NULL, _IONBF, 0);
    int a = dgram(addr, 47001), b = dgram(addr, 47002);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(47002)}, from;
    inet_pton(AF_INET, addr, &to.sin_addr);
    char msg[64] = "hello datagram rsocket", buf[256] = {0};
    double t0 = now();
    ssize_t n = rsendto(a, msg, strlen(msg) + 1, 0, (struct sockaddr *) &to, sizeof to);
    printf("rsendto = %zd errno %d (%s) in %.3f s\n", n, n < 0 ? errno : 0, n < 0 ? strerror(errno) : "", now() - t0);
    n = await_recv(b, buf, sizeof buf, &from, 20);
    if (n > 0) {
        char ip[32];
        inet_ntop(AF_INET, &from.sin_addr, ip, sizeof ip);
        printf("DGRAM-RECV %s from %s:%d, same bytes: %s\n", buf, ip, ntohs(from.sin_port),
               strcmp(buf, msg) == 0 ? "yes" : "no");
        n = rsendto(b, "reply", 6, 0, (struct sockaddr *) &from, sizeof from);
        printf("rsendto(reply) = %zd errno %d\n", n, n < 0 ? errno : 0);
        n = await_recv(a, buf, sizeof buf, &from, 20);
        if (n > 0) printf("DGRAM-REPLY %s\n", buf);
    }
    // rrecvmsg with two iovecs: rdma-core 44 fills iov[0] only, and passes msg_flags.
    n = rsendto(a, "0123456789", 10, 0, (struct sockaddr *) &to, sizeof to);
    printf("rsendto(10) = %zd\n", n);
    {
        char x[4] = {0}, y[16] = {0};
        struct iovec iov[2] = {{x, 4}, {y, 16}};
        struct sockaddr_in name = {0};
        struct msghdr m = {.msg_name = &name, .msg_namelen = sizeof name, .msg_iov = iov, .msg_iovlen = 2};
        double s = now();
        do {
            n = rrecvmsg(b, &m, 0);
            if (n < 0 && errno == EAGAIN) usleep(1000);
        } while (n < 0 && errno == EAGAIN && now() - s < 20);
        printf("rrecvmsg = %zd errno %d; iov0 '%.4s' iov1 '%s' name port %d\n", n, n < 0 ? errno : 0, x, y,
               ntohs(name.sin_port));
    }
    // rsendmsg on a datagram rsocket: rsendv has no SOCK_DGRAM branch in 44.
    pid_t pid = fork();
    if (pid == 0) {
        struct iovec iov[1] = {{"abc", 3}};
        struct msghdr m = {.msg_name = &to, .msg_namelen = sizeof to, .msg_iov = iov, .msg_iovlen = 1};
        ssize_t r = rsendmsg(a, &m, 0);
        printf("rsendmsg(dgram) = %zd errno %d (%s)\n", r, r < 0 ? errno : 0, r < 0 ? strerror(errno) : "");
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("rsendmsg child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    // rselect, zero timeout (rpoll's check only).
    fd_set rd, wr;
    FD_ZERO(&rd); FD_ZERO(&wr);
    FD_SET(a, &rd); FD_SET(b, &rd); FD_SET(a, &wr);
    struct timeval tv = {0, 0};
    int max = (a > b ? a : b) + 1;
    int r = rselect(max, &rd, &wr, NULL, &tv);
    printf("rselect(0) = %d errno %d; a readable %d, b readable %d, a writable %d (fds %d %d)\n", r, r < 0 ? errno : 0,
           FD_ISSET(a, &rd), FD_ISSET(b, &rd), FD_ISSET(a, &wr), a, b);
    rclose(a);
    rclose(b);
    printf("DGRAM-PROBE-END\n");
    return 0;
}
