/* Run an ATmega328P firmware under simavr with its UART0 bridged to a pseudo-terminal.
 *
 *   uart_pty_harness FIRMWARE.hex [--uid 8HEXDIGITS] [--freq 16000000] [--reset-on-open S]
 *
 * Prints "PTY /dev/pts/N" on stdout once the board runs; the host opens that path as a
 * serial port. Simulated time never runs ahead of wall time (the firmware's timeouts are
 * then real), though it may fall behind on a busy machine. SIGUSR1 pulls PD2 low for
 * 50 ms (the LED controller's button, the shuffler's jam sensor). SIGTERM/SIGINT end it.
 *
 * --reset-on-open S behaves like an Uno whose DTR line resets it when a host opens the
 * port: the pty runs in packet mode, and when the host flushes its input (pyserial does
 * on open) the board is reset and held for S seconds (the bootloader), swallowing bytes.
 * simavr's own command has no serial bridge, hence this program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <simavr/avr_eeprom.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_hex.h>
#include <simavr/sim_irq.h>

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t press_requested;
static int master_fd = -1;
static int uart_ready = 1; /* simavr's XON/XOFF: may we push another byte? */

static void on_signal(int sig) {
    if (sig == SIGUSR1) press_requested = 1;
    else stop_requested = 1;
}

static void uart_output(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    unsigned char byte = (unsigned char)value;
    if (master_fd >= 0) {
        ssize_t written = write(master_fd, &byte, 1);
        (void)written; /* nobody reading: the byte is lost, as on a real wire */
    }
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)value; (void)param;
    uart_ready = 1;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)value; (void)param;
    uart_ready = 0;
}

static double wall_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int load_hex(avr_t *avr, const char *path) {
    ihex_chunk_p chunks = NULL;
    int count = read_ihex_chunks(path, &chunks);
    if (count <= 0) {
        fprintf(stderr, "uart_pty_harness: cannot read %s\n", path);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (chunks[i].baseaddr < 0x10000) { /* flash; the EEPROM image starts at 0x810000 */
            avr_loadcode(avr, chunks[i].data, chunks[i].size, chunks[i].baseaddr);
            if (chunks[i].baseaddr + chunks[i].size > avr->codeend)
                avr->codeend = chunks[i].baseaddr + chunks[i].size;
        }
        free(chunks[i].data);
    }
    free(chunks);
    return 0;
}

int main(int argc, char **argv) {
    const char *hex = NULL;
    const char *uid = NULL;
    unsigned long freq = 16000000UL;
    double reset_hold = 0.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--uid") == 0 && i + 1 < argc) uid = argv[++i];
        else if (strcmp(argv[i], "--freq") == 0 && i + 1 < argc) freq = strtoul(argv[++i], 0, 10);
        else if (strcmp(argv[i], "--reset-on-open") == 0 && i + 1 < argc) reset_hold = atof(argv[++i]);
        else if (!hex && argv[i][0] != '-') hex = argv[i];
        else {
            fprintf(stderr, "usage: %s FIRMWARE.hex [--uid 8HEXDIGITS] [--freq HZ]\n", argv[0]);
            return 2;
        }
    }
    if (!hex || (uid && strlen(uid) != 8)) {
        fprintf(stderr, "usage: %s FIRMWARE.hex [--uid 8HEXDIGITS] [--freq HZ]\n", argv[0]);
        return 2;
    }
    avr_t *avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "uart_pty_harness: simavr lacks atmega328p\n");
        return 1;
    }
    avr_init(avr);
    avr->frequency = (uint32_t)freq;
    avr->log = LOG_ERROR;
    if (load_hex(avr, hex) != 0) return 1;
    avr->pc = 0;

    if (uid) {
        avr_eeprom_desc_t desc = {.ee = (uint8_t *)uid, .offset = 0, .size = 8};
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &desc);
    }

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_output, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff, NULL);
    avr_irq_t *uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_t *pin_d2 = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 2);
    avr_raise_irq(pin_d2, 1);

    master_fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (master_fd < 0 || grantpt(master_fd) || unlockpt(master_fd)) {
        perror("uart_pty_harness: pty");
        return 1;
    }
    const char *slave_name = ptsname(master_fd);
    int slave_fd = open(slave_name, O_RDWR | O_NOCTTY); /* held open so hosts may come and go */
    struct termios raw;
    tcgetattr(slave_fd, &raw);
    cfmakeraw(&raw);
    tcsetattr(slave_fd, TCSANOW, &raw);
    fcntl(master_fd, F_SETFL, fcntl(master_fd, F_GETFL) | O_NONBLOCK);
    if (reset_hold > 0) {
        int on = 1;
        ioctl(master_fd, TIOCPKT, &on);
    }

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGUSR1, &action, NULL);
    signal(SIGPIPE, SIG_IGN);

    printf("PTY %s\n", slave_name);
    fflush(stdout);

    double start = wall_seconds(); /* wall time at AVR cycle 0 */
    const avr_cycle_count_t poll_every = freq / 2000; /* feed the UART every 0.5 ms of AVR time */
    avr_cycle_count_t next_poll = 0;
    avr_cycle_count_t release_d2 = 0;
    unsigned char pending[256];
    size_t pending_len = 0, pending_pos = 0;
    while (!stop_requested) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "uart_pty_harness: firmware stopped (state %d)\n", state);
            break;
        }
        if (avr->cycle < next_poll) continue;
        next_poll = avr->cycle + poll_every;
        if (press_requested) {
            press_requested = 0;
            avr_raise_irq(pin_d2, 0);
            release_d2 = avr->cycle + freq / 20;
        }
        if (release_d2 && avr->cycle >= release_d2) {
            avr_raise_irq(pin_d2, 1);
            release_d2 = 0;
        }
        if (pending_pos == pending_len) {
            ssize_t got = read(master_fd, pending, sizeof pending);
            pending_len = got > 0 ? (size_t)got : 0;
            pending_pos = 0;
            if (reset_hold > 0 && pending_len) { /* packet mode: a status byte first */
                if (pending[0] == TIOCPKT_DATA) {
                    pending_pos = 1;
                } else {
                    pending_len = 0;
                    if (pending[0] & TIOCPKT_FLUSHREAD) { /* the host opened the port */
                        double until = wall_seconds() + reset_hold;
                        while (wall_seconds() < until && !stop_requested) {
                            unsigned char junk[256];
                            ssize_t eaten = read(master_fd, junk, sizeof junk);
                            (void)eaten; /* the bootloader swallows what arrives */
                            struct timespec pause = {0, 1000000L};
                            nanosleep(&pause, NULL);
                        }
                        avr_reset(avr);
                        avr_raise_irq(pin_d2, 1);
                        uart_ready = 1;
                        start = wall_seconds() - (double)avr->cycle / (double)freq;
                        next_poll = avr->cycle;
                    }
                }
            }
        }
        while (uart_ready && pending_pos < pending_len) avr_raise_irq(uart_in, pending[pending_pos++]);
        /* never run ahead of the wall clock */
        double ahead = (double)avr->cycle / (double)freq - (wall_seconds() - start);
        if (ahead > 0.001) {
            struct timespec pause = {0, (long)(ahead * 1e9)};
            nanosleep(&pause, NULL);
        }
    }
    close(slave_fd);
    close(master_fd);
    avr_terminate(avr);
    return 0;
}
