#ifndef TONEARM_CMICROHTTPD_SHIM_H
#define TONEARM_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions; these static inline wrappers give
   HTTPServer the few variadic microhttpd calls it needs with fixed arguments. */

typedef void *(*tonearm_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/** MHD_start_daemon with the options HTTPServer uses. `addr` carries the port.
    A zero `per_ip_limit` means no per-IP limit; zero `timeout_seconds` means none. */
static inline struct MHD_Daemon *
tonearm_mhd_start(unsigned int flags,
                  const struct sockaddr *addr,
                  MHD_AccessHandlerCallback handler, void *handler_cls,
                  MHD_RequestCompletedCallback completed, void *completed_cls,
                  tonearm_uri_log_callback uri_log, void *uri_log_cls,
                  unsigned int connection_limit,
                  unsigned int per_ip_limit,
                  unsigned int timeout_seconds,
                  size_t thread_stack_size)
{
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_THREAD_STACK_SIZE, thread_stack_size,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int) 1,
                            MHD_OPTION_END);
}

/** The daemon flags HTTPServer uses: one thread per connection (so an SSE reader may
    block), an internal listening thread, poll() instead of select() (no FD_SETSIZE
    limit), an inter-thread channel for prompt shutdown, and no Date header. */
static inline unsigned int tonearm_mhd_flags(int ipv6)
{
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD
                       | MHD_USE_POLL | MHD_USE_ITC | MHD_USE_SUPPRESS_DATE_NO_CLOCK;
    if (ipv6) flags |= MHD_USE_IPv6;
    return flags;
}

/** A response holding a copy of `size` bytes at `data` (0.9.75 has no _from_buffer_copy). */
static inline struct MHD_Response *tonearm_mhd_response_copy(size_t size, const void *data)
{
    static char empty = 0;
    return MHD_create_response_from_buffer(size, data ? (void *) data : (void *) &empty, MHD_RESPMEM_MUST_COPY);
}

/** The port the daemon is bound to (0 if unknown). */
static inline uint16_t tonearm_mhd_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/** The connection's socket, or -1. */
static inline int tonearm_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/** Writes the client's numeric address (no port) into `buf`; returns 0 on success. */
static inline int tonearm_mhd_client_address(struct MHD_Connection *connection, char *buf, size_t len)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || len == 0) return -1;
    const struct sockaddr *sa = info->client_addr;
    const void *src = NULL;
    if (sa->sa_family == AF_INET) src = &((const struct sockaddr_in *) sa)->sin_addr;
    else if (sa->sa_family == AF_INET6) src = &((const struct sockaddr_in6 *) sa)->sin6_addr;
    else return -1;
    return inet_ntop(sa->sa_family, src, buf, (socklen_t) len) ? 0 : -1;
}

/** 1 if the peer has closed or reset the socket (checked without blocking or reading). */
static inline int tonearm_socket_peer_gone(int fd)
{
    if (fd < 0) return 0;
    struct pollfd p;
    p.fd = fd;
#ifdef POLLRDHUP
    p.events = POLLRDHUP;
#else
    p.events = 0x2000;
#endif
    p.revents = 0;
    if (poll(&p, 1, 0) <= 0) return 0;
    return (p.revents & (POLLHUP | POLLERR | POLLNVAL | 0x2000)) ? 1 : 0;
}

#endif
