/* LED token controller: one WS2812 pixel per seat on PD6 (Arduino D6), a button on PD2.
 *
 * Commands: SET <seat> <letter>, ALL <letters>, BRIGHT <0-255>, STATUS.
 * Letters: - off, I waiting, T turn, R one refusal, Z frozen, F folded, W winner,
 * L assistant lost. In the safe state every seat shows L.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdlib.h>
#include <string.h>

#include "../common/button.h"
#include "../common/proto.h"

#define SEATS 8
#define REFRESH_MS 40

const char dev_kind[] = "LED";
static const char letters[] = "-ITRZFWL";
static char lights[SEATS + 1];
static uint8_t brightness;
static uint8_t dirty;

void dev_capabilities(char *out) { strcat(out, " 8"); }

void dev_reset(void) {
    memset(lights, '-', SEATS);
    lights[SEATS] = 0;
    brightness = 64;
    button_init();
    DDRD |= _BV(PD6);
    PORTD &= (uint8_t)~_BV(PD6);
    dirty = 1;
}

void dev_enter_safe(void) { dirty = 1; }
void dev_leave_safe(void) { dirty = 1; }

/* ---- WS2812 output: 800 kHz, GRB, MSB first, at 16 MHz (20 cycles a bit) ------------- */
static void ws2812_byte(uint8_t byte) {
    uint8_t hi = PORTD | _BV(PD6);
    uint8_t lo = PORTD & (uint8_t)~_BV(PD6);
    uint8_t bits = 8;
    __asm__ volatile(
        "1:  out  %[port], %[hi]  \n\t" /* 0: rise */
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    sbrs %[byte], 7      \n\t" /* 4: a 0 bit falls after ~0.375 us */
        "    out  %[port], %[lo]  \n\t"
        "    lsl  %[byte]         \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    out  %[port], %[lo]  \n\t" /* 13: a 1 bit falls after ~0.8 us */
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    nop                  \n\t"
        "    dec  %[bits]         \n\t"
        "    brne 1b              \n\t" /* 20 cycles a bit */
        : [byte] "+r"(byte), [bits] "+r"(bits)
        : [port] "I"(_SFR_IO_ADDR(PORTD)), [hi] "r"(hi), [lo] "r"(lo));
}

static void colour_of(char letter, uint8_t phase, uint8_t rgb[3]) {
    uint8_t r = 0, g = 0, b = 0;
    uint8_t blink = phase < 8; /* 2.5 Hz at REFRESH_MS 40 with a 16-step phase */
    switch (letter) {
    case 'I': b = 60; break;
    case 'T': r = g = b = blink ? 255 : 90; break;
    case 'R': r = 255; g = 120; break;
    case 'Z': g = 180; b = 255; break;
    case 'F': r = 40; break;
    case 'W': g = blink ? 255 : 0; break;
    case 'L': r = blink ? 255 : 0; break;
    default: break;
    }
    rgb[0] = (uint8_t)((r * (uint16_t)brightness) >> 8);
    rgb[1] = (uint8_t)((g * (uint16_t)brightness) >> 8);
    rgb[2] = (uint8_t)((b * (uint16_t)brightness) >> 8);
}

static void show(uint8_t phase) {
    uint8_t rgb[SEATS][3];
    for (uint8_t seat = 0; seat < SEATS; seat++)
        colour_of(proto_safe() ? 'L' : lights[seat], phase, rgb[seat]);
    uint8_t sreg = SREG;
    cli(); /* ~240 us; the UART keeps up to 3 bytes meanwhile */
    for (uint8_t seat = 0; seat < SEATS; seat++) {
        ws2812_byte(rgb[seat][1]);
        ws2812_byte(rgb[seat][0]);
        ws2812_byte(rgb[seat][2]);
    }
    SREG = sreg;
}

void dev_poll(uint32_t now) {
    static uint32_t last_refresh;
    static uint8_t phase;
    if (button_take()) proto_event("BUTTON", "1");
    if (dirty || now - last_refresh >= REFRESH_MS) {
        phase = (uint8_t)((phase + 1) & 15);
        show(phase);
        last_refresh = now;
        dirty = 0;
    }
}

static uint8_t valid_letter(char c) { return c && strchr(letters, c) != 0; }

uint8_t dev_execute(const char *verb, uint8_t argc, char **argv, char *out, const char **nak,
                    uint16_t *busy_ms) {
    (void)busy_ms;
    uint16_t value;
    *nak = "ARGS";
    if (strcmp(verb, "SET") == 0) {
        if (argc != 2 || !parse_uint(argv[0], SEATS - 1, &value) || strlen(argv[1]) != 1 ||
            !valid_letter(argv[1][0]))
            return DEV_NAK;
        lights[value] = argv[1][0];
        dirty = 1;
        return DEV_OK;
    }
    if (strcmp(verb, "ALL") == 0) {
        if (argc != 1 || strlen(argv[0]) > SEATS) return DEV_NAK;
        for (const char *p = argv[0]; *p; p++)
            if (!valid_letter(*p)) return DEV_NAK;
        memset(lights, '-', SEATS);
        memcpy(lights, argv[0], strlen(argv[0]));
        dirty = 1;
        return DEV_OK;
    }
    if (strcmp(verb, "BRIGHT") == 0) {
        if (argc != 1 || !parse_uint(argv[0], 255, &value)) return DEV_NAK;
        brightness = (uint8_t)value;
        dirty = 1;
        return DEV_OK;
    }
    if (strcmp(verb, "STATUS") == 0 && argc == 0) {
        char number[4];
        strcpy(out, " ");
        strcat(out, lights);
        strcat(out, " ");
        utoa(brightness, number, 10);
        strcat(out, number);
        return DEV_OK;
    }
    *nak = "UNKNOWN";
    return DEV_NAK;
}

uint8_t dev_finish(char *out, const char **nak) {
    (void)out;
    *nak = "UNKNOWN";
    return DEV_NAK;
}

int main(void) { proto_run(); }
