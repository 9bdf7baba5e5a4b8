/* Device side of the line protocol for the ATmega328P; see proto.h. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdlib.h>
#include <string.h>
#include <util/crc16.h>

#include "proto.h"

#define BAUD 57600UL
#define RX_SIZE 128 /* power of two */
#define EVENT_QUEUE 8
#define EVENT_REPEAT_MS 500
#define SAFE_AFTER_MS 3000
#define UID_LEN 8

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint32_t ms_now;

ISR(USART_RX_vect) {
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_SIZE - 1));
    if (next != rx_tail) {
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

ISR(TIMER0_COMPA_vect) { ms_now++; }

uint32_t millis(void) {
    uint8_t sreg = SREG;
    cli();
    uint32_t now = ms_now;
    SREG = sreg;
    return now;
}

static void uart_put(uint8_t c) {
    while (!(UCSR0A & _BV(UDRE0))) {
    }
    UDR0 = c;
}

static const char hex_digits[] = "0123456789ABCDEF";

/* Send body + "*CRC\n". */
static void send_line(const char *body) {
    uint16_t crc = 0xFFFF;
    for (const char *p = body; *p; p++) {
        crc = _crc_xmodem_update(crc, (uint8_t)*p);
        uart_put((uint8_t)*p);
    }
    uart_put('*');
    for (int8_t shift = 12; shift >= 0; shift -= 4) uart_put((uint8_t)hex_digits[(crc >> shift) & 0xF]);
    uart_put('\n');
}

/* ---- state ---------------------------------------------------------------------------- */
static char uid[UID_LEN + 1];
static char line[PROTO_LINE_MAX + 1];
static uint8_t line_len, line_overflow;

static uint8_t cache_valid;
static char cache_key[PROTO_LINE_MAX];   /* the body of the last command run */
static char cache_reply[PROTO_LINE_MAX]; /* the body of its answer */

static uint8_t busy;
static char busy_key[PROTO_LINE_MAX];
static uint8_t busy_seq;
static uint32_t busy_until;

static struct {
    uint8_t id;
    const char *kind;
    char arg[4];
} events[EVENT_QUEUE];
static uint8_t event_head, event_count, event_id, event_sent;
static uint32_t event_sent_at;

static uint32_t last_host;
static uint8_t safe;

uint8_t proto_safe(void) { return safe; }

uint8_t parse_uint(const char *text, uint16_t max, uint16_t *value) {
    uint32_t v = 0;
    if (!*text) return 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (uint32_t)(*p - '0');
        if (v > max) return 0;
    }
    *value = (uint16_t)v;
    return 1;
}

void proto_event(const char *kind, const char *arg) {
    if (event_count >= EVENT_QUEUE) return;
    uint8_t slot = (uint8_t)((event_head + event_count) % EVENT_QUEUE);
    event_id = (uint8_t)(event_id % 255 + 1);
    events[slot].id = event_id;
    events[slot].kind = kind;
    events[slot].arg[0] = 0;
    if (arg) strncpy(events[slot].arg, arg, sizeof events[slot].arg - 1);
    if (event_count++ == 0) event_sent = 0;
}

static void send_event(void) {
    char body[32];
    char number[4];
    strcpy(body, "! EVT ");
    utoa(events[event_head].id, number, 10);
    strcat(body, number);
    strcat(body, " ");
    strcat(body, events[event_head].kind);
    if (events[event_head].arg[0]) {
        strcat(body, " ");
        strcat(body, events[event_head].arg);
    }
    send_line(body);
}

/* ---- commands ------------------------------------------------------------------------- */
static void reply(uint8_t seq, uint8_t result, const char *values, const char *nak) {
    utoa(seq, cache_reply, 10);
    if (result == DEV_OK) {
        strcat(cache_reply, " OK");
        strcat(cache_reply, values);
    } else {
        strcat(cache_reply, " NAK ");
        strcat(cache_reply, nak);
    }
    cache_valid = 1;
    send_line(cache_reply);
}

static void send_nak(uint8_t seq, const char *reason) {
    char body[16];
    utoa(seq, body, 10);
    strcat(body, " NAK ");
    strcat(body, reason);
    send_line(body);
}

/* Check the CRC, cut it off; 1 if the line is intact. */
static uint8_t unframe(char *text, uint8_t len) {
    if (len && text[len - 1] == '\r') len--;
    if (len < 5 || text[len - 5] != '*') return 0;
    uint16_t claimed = 0;
    for (uint8_t i = (uint8_t)(len - 4); i < len; i++) {
        char c = text[i];
        uint8_t digit;
        if (c >= '0' && c <= '9') digit = (uint8_t)(c - '0');
        else if (c >= 'A' && c <= 'F') digit = (uint8_t)(c - 'A' + 10);
        else if (c >= 'a' && c <= 'f') digit = (uint8_t)(c - 'a' + 10);
        else return 0;
        claimed = (uint16_t)((claimed << 4) | digit);
    }
    uint16_t crc = 0xFFFF;
    for (uint8_t i = 0; i < len - 5; i++) {
        if (text[i] < 0x20 || text[i] > 0x7E) return 0;
        crc = _crc_xmodem_update(crc, (uint8_t)text[i]);
    }
    text[len - 5] = 0;
    return crc == claimed;
}

static void handle_line(void) {
    if (!unframe(line, line_len)) {
        send_line("! NAK CRC");
        return;
    }
    char body[PROTO_LINE_MAX];
    strcpy(body, line);
    char *argv[PROTO_MAX_ARGS + 2];
    uint8_t argc = 0;
    for (char *word = strtok(line, " "); word && argc < PROTO_MAX_ARGS + 2; word = strtok(0, " "))
        argv[argc++] = word;
    uint16_t seq;
    if (argc < 2 || !parse_uint(argv[0], 255, &seq) || seq == 0) {
        send_line("! NAK CRC");
        return;
    }
    last_host = millis();
    if (safe) {
        safe = 0;
        dev_leave_safe();
    }
    if (busy) {
        send_nak((uint8_t)seq, "BUSY");
        return;
    }
    if (cache_valid && strcmp(cache_key, body) == 0) {
        send_line(cache_reply);
        return;
    }
    strcpy(cache_key, body);
    cache_valid = 0;
    char out[PROTO_LINE_MAX - 8];
    out[0] = 0;
    const char *nak = "UNKNOWN";
    const char *verb = argv[1];
    uint8_t nargs = (uint8_t)(argc - 2);
    char **args = argv + 2;
    if (strcmp(verb, "HELLO") == 0 && nargs == 0) {
        strcpy(out, " ");
        strcat(out, dev_kind);
        strcat(out, " " FIRMWARE_VERSION " ");
        strcat(out, uid);
        dev_capabilities(out);
        reply((uint8_t)seq, DEV_OK, out, 0);
        return;
    }
    if (strcmp(verb, "PING") == 0 && nargs == 0) {
        reply((uint8_t)seq, DEV_OK, "", 0);
        return;
    }
    if (strcmp(verb, "ACK") == 0) {
        uint16_t id;
        if (nargs != 1 || !parse_uint(args[0], 255, &id) || id == 0) {
            reply((uint8_t)seq, DEV_NAK, 0, "ARGS");
            return;
        }
        if (event_count && events[event_head].id == id) {
            event_head = (uint8_t)((event_head + 1) % EVENT_QUEUE);
            event_count--;
            event_sent = 0;
        }
        reply((uint8_t)seq, DEV_OK, "", 0);
        return;
    }
    uint16_t busy_ms = 0;
    uint8_t result = dev_execute(verb, nargs, args, out, &nak, &busy_ms);
    if (result == DEV_BUSY) {
        busy = 1;
        busy_seq = (uint8_t)seq;
        strcpy(busy_key, body);
        busy_until = millis() + busy_ms;
        return;
    }
    reply((uint8_t)seq, result, out, nak);
}

static void feed(uint8_t c) {
    if (c == '\n') {
        if (line_overflow) send_line("! NAK LONG");
        else {
            line[line_len] = 0;
            handle_line();
        }
        line_len = 0;
        line_overflow = 0;
    } else if (!line_overflow) {
        line[line_len++] = (char)c;
        if (line_len >= PROTO_LINE_MAX) {
            line_overflow = 1;
            line_len = 0;
        }
    }
}

/* ---- identity ------------------------------------------------------------------------- */
static void load_uid(void) {
    uint8_t valid = 1;
    eeprom_read_block(uid, (const void *)0, UID_LEN);
    for (uint8_t i = 0; i < UID_LEN; i++)
        if (!((uid[i] >= '0' && uid[i] <= '9') || (uid[i] >= 'A' && uid[i] <= 'F'))) valid = 0;
    if (!valid) { /* first boot: make one up from ADC noise and keep it */
        ADMUX = _BV(REFS0);
        ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
        uint16_t a = 0xFFFF, b = 0x1D0F;
        for (uint8_t i = 0; i < 64; i++) {
            ADCSRA |= _BV(ADSC);
            while (ADCSRA & _BV(ADSC)) {
            }
            a = _crc_xmodem_update(a, ADCL ^ TCNT0);
            b = _crc_xmodem_update(b, (uint8_t)(ADCH + i + (a >> 8)));
        }
        ADCSRA = 0;
        for (uint8_t i = 0; i < 4; i++) uid[i] = hex_digits[(a >> (12 - 4 * i)) & 0xF];
        for (uint8_t i = 0; i < 4; i++) uid[4 + i] = hex_digits[(b >> (12 - 4 * i)) & 0xF];
        eeprom_update_block(uid, (void *)0, UID_LEN);
    }
    uid[UID_LEN] = 0;
}

/* ---- main loop ------------------------------------------------------------------------ */
void proto_run(void) {
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)((F_CPU + 4 * BAUD) / (8 * BAUD) - 1);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    TCCR0A = _BV(WGM01); /* CTC, 1 kHz */
    OCR0A = (uint8_t)(F_CPU / 64 / 1000 - 1);
    TIMSK0 = _BV(OCIE0A);
    TCCR0B = _BV(CS01) | _BV(CS00);
    load_uid();
    safe = 1;
    dev_reset();
    dev_enter_safe();
    proto_event("BOOT", 0);
    sei();
    for (;;) {
        while (rx_tail != rx_head) {
            uint8_t c = rx_buf[rx_tail];
            rx_tail = (uint8_t)((rx_tail + 1) & (RX_SIZE - 1));
            feed(c);
        }
        uint32_t now = millis();
        if (busy && (int32_t)(now - busy_until) >= 0) {
            char out[PROTO_LINE_MAX - 8];
            const char *nak = "UNKNOWN";
            out[0] = 0;
            uint8_t result = dev_finish(out, &nak);
            busy = 0;
            strcpy(cache_key, busy_key);
            reply(busy_seq, result, out, nak);
        }
        if (!safe && now - last_host > SAFE_AFTER_MS) {
            safe = 1;
            dev_enter_safe();
            proto_event("SAFE", 0);
        }
        if (event_count && (!event_sent || now - event_sent_at >= EVENT_REPEAT_MS)) {
            send_event();
            event_sent = 1;
            event_sent_at = now;
        }
        dev_poll(now);
        cli();
        if (rx_tail == rx_head) {
            set_sleep_mode(SLEEP_MODE_IDLE);
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
