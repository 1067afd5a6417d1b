/*
 * kafka-mock: a Kafka-protocol broker for tests, backed by librdkafka's built-in mock cluster.
 *
 * Usage: kafka-mock [--brokers N] [--watch-stdin] [topic:partitions ...]
 *
 * Prints the bootstrap address (host:port[,host:port...]) as ONE line on stdout once the
 * cluster accepts connections, then serves until SIGTERM/SIGINT. With --watch-stdin it also
 * exits when stdin reaches EOF, so a test runner that dies without killing us (jest
 * --forceExit, a crash) does not leave an orphan broker behind.
 *
 * Limits of the mock (see shared notes): no CreateTopics/DeleteTopics/DescribeGroups, data in
 * memory only, auto-created topics get 4 partitions.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void)sig;
        stop_requested = 1;
}

static int create_topic(rd_kafka_mock_cluster_t *mcluster, const char *spec) {
        char name[512];
        const char *colon = strrchr(spec, ':');
        int partitions    = 4;
        size_t len        = colon ? (size_t)(colon - spec) : strlen(spec);

        if (len == 0 || len >= sizeof(name)) {
                fprintf(stderr, "kafka-mock: bad topic spec '%s'\n", spec);
                return -1;
        }
        memcpy(name, spec, len);
        name[len] = '\0';
        if (colon) {
                char *end;
                long n = strtol(colon + 1, &end, 10);
                if (*end != '\0' || n < 1 || n > 10000) {
                        fprintf(stderr, "kafka-mock: bad partition count in '%s'\n", spec);
                        return -1;
                }
                partitions = (int)n;
        }
        rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, name, partitions, 1);
        if (err) {
                fprintf(stderr, "kafka-mock: creating %s failed: %s\n", name, rd_kafka_err2str(err));
                return -1;
        }
        return 0;
}

int main(int argc, char **argv) {
        int broker_cnt  = 1;
        int watch_stdin = 0;
        char errstr[512];
        int i;

        /* librdkafka needs a client handle to own the mock cluster's threads; it sends nothing. */
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "kafka-mock: %s\n", errstr);
                return 1;
        }
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "kafka-mock: rd_kafka_new: %s\n", errstr);
                return 1;
        }

        for (i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--brokers") && i + 1 < argc) {
                        broker_cnt = atoi(argv[++i]);
                        if (broker_cnt < 1)
                                broker_cnt = 1;
                } else if (!strcmp(argv[i], "--watch-stdin")) {
                        watch_stdin = 1;
                }
        }

        rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, broker_cnt);
        if (!mcluster) {
                fprintf(stderr, "kafka-mock: failed to create the mock cluster\n");
                rd_kafka_destroy(rk);
                return 1;
        }
        /* Without a controller id kafkajs' idempotent producer cannot get a producer id. */
        rd_kafka_mock_set_controller_id(mcluster, 1);
        /* Tests join and leave groups constantly; the default 3 s delay would dominate them. */
        rd_kafka_mock_group_initial_rebalance_delay_ms(mcluster, 0);
        /* The mock decodes every LeaveGroup as v0-v2 (one member id), but advertises up to v4:
         * kafkajs then sends v3 (a member list), the leave is ignored and a restarted consumer
         * waits a whole session timeout for its ghost to expire. Capping the version makes
         * kafkajs send a request the mock understands, so stop() really leaves the group. */
        rd_kafka_mock_set_apiversion(mcluster, 13 /* LeaveGroup */, 0, 2);

        for (i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--brokers")) {
                        i++;
                        continue;
                }
                if (argv[i][0] == '-')
                        continue;
                if (create_topic(mcluster, argv[i]) != 0) {
                        rd_kafka_mock_cluster_destroy(mcluster);
                        rd_kafka_destroy(rk);
                        return 2;
                }
        }

        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);

        while (!stop_requested) {
                if (watch_stdin) {
                        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
                        int r             = poll(&pfd, 1, 200);
                        if (r > 0) {
                                char buf[256];
                                ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
                                if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                                        break;
                        } else if (r == 0 && (pfd.revents & (POLLHUP | POLLERR))) {
                                break;
                        }
                } else {
                        usleep(200 * 1000);
                }
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
