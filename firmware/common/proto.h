/* The dealer-assistant serial line protocol, device side (docs/devices-protocol.md).
 *
 * proto.c owns the UART, the millisecond clock, line framing with CRC-16/CCITT-FALSE,
 * the reply cache that makes a resent line safe, the event queue and the safe-state
 * watchdog. A device (led.c, shuffler.c) supplies the dev_* functions below.
 */
#ifndef PROTO_H
#define PROTO_H

#include <stdint.h>

#define PROTO_LINE_MAX 96
#define PROTO_MAX_ARGS 6
#define FIRMWARE_VERSION "1.0"

enum dev_result { DEV_OK, DEV_NAK, DEV_BUSY };

/* Provided by the device. */
extern const char dev_kind[];
void dev_capabilities(char *out);           /* appends " <seats> ..." to the HELLO answer */
void dev_reset(void);                       /* power-on state */
void dev_enter_safe(void);                  /* the host went quiet */
void dev_leave_safe(void);                  /* the host is back */
void dev_poll(uint32_t now_ms);             /* called every loop turn */
/* Run a command. DEV_OK: values (each preceded by a space) written to out. DEV_NAK: *nak set.
 * DEV_BUSY: *busy_ms of motor time, then dev_finish() gives the answer. */
uint8_t dev_execute(const char *verb, uint8_t argc, char **argv, char *out, const char **nak,
                    uint16_t *busy_ms);
uint8_t dev_finish(char *out, const char **nak);

/* Provided by proto.c for the device. */
uint32_t millis(void);
void proto_event(const char *kind, const char *arg); /* arg may be 0 */
uint8_t proto_safe(void);
uint8_t parse_uint(const char *text, uint16_t max, uint16_t *value); /* 1 if a number <= max */
void proto_run(void) __attribute__((noreturn));

#endif
