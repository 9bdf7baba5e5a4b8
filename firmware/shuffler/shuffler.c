/* Card shuffler/dealer: a shuffle motor on PB1 (D9), a feed motor on PB2 (D10), a jam
 * sensor on PD2 (D2, closes to ground). The shoe is tracked as a virtual deck shuffled by
 * the firmware, so each dealt card can be named.
 *
 * Commands: SHUFFLE, DEAL <seat> <U|D>, CLEAR, STATUS.
 */
#include <avr/io.h>
#include <stdlib.h>
#include <string.h>

#include "../common/button.h"
#include "../common/proto.h"

#define SEATS 8
#define DECK 52
#define DEAL_MS 150
#define SHUFFLE_MS 600

const char dev_kind[] = "SHUFFLER";
static const char ranks[] = "A23456789TJQK";
static const char suits[] = "cdhs";

static uint8_t shoe[DECK];
static uint8_t left, dealt, jammed, jam_seen;
static uint8_t job; /* 0 none, 1 shuffle, 2 deal */
static uint32_t random_state;

void dev_capabilities(char *out) { strcat(out, " 8 52"); }

static void motors_off(void) { PORTB &= (uint8_t)~(_BV(PB1) | _BV(PB2)); }

void dev_reset(void) {
    DDRB |= _BV(PB1) | _BV(PB2);
    motors_off();
    button_init();
    left = dealt = jammed = jam_seen = 0;
    job = 0;
    random_state = 0x2545F491UL;
}

void dev_enter_safe(void) { motors_off(); }
void dev_leave_safe(void) {}

void dev_poll(uint32_t now) {
    random_state ^= now; /* the host's timing stirs the shuffle */
    if (button_take()) jam_seen = 1;
}

static uint32_t next_random(void) { /* xorshift32 */
    if (!random_state) random_state = 0x2545F491UL;
    random_state ^= random_state << 13;
    random_state ^= random_state >> 17;
    random_state ^= random_state << 5;
    return random_state;
}

static const char *status_word(void) {
    if (jammed) return "JAM";
    return left ? "READY" : "EMPTY";
}

static void append_number(char *out, uint8_t value) {
    char number[4];
    strcat(out, " ");
    utoa(value, number, 10);
    strcat(out, number);
}

uint8_t dev_execute(const char *verb, uint8_t argc, char **argv, char *out, const char **nak,
                    uint16_t *busy_ms) {
    uint16_t seat;
    if (strcmp(verb, "STATUS") == 0 && argc == 0) {
        strcat(out, " ");
        strcat(out, status_word());
        append_number(out, left);
        append_number(out, dealt);
        return DEV_OK;
    }
    if (strcmp(verb, "CLEAR") == 0 && argc == 0) {
        jammed = 0;
        jam_seen = 0;
        return DEV_OK;
    }
    if (strcmp(verb, "SHUFFLE") == 0 && argc == 0) {
        if (jammed) {
            *nak = "JAM";
            return DEV_NAK;
        }
        PORTB |= _BV(PB1);
        job = 1;
        *busy_ms = SHUFFLE_MS;
        return DEV_BUSY;
    }
    if (strcmp(verb, "DEAL") == 0) {
        if (argc != 2 || !parse_uint(argv[0], SEATS - 1, &seat) ||
            (strcmp(argv[1], "U") != 0 && strcmp(argv[1], "D") != 0)) {
            *nak = "ARGS";
            return DEV_NAK;
        }
        if (jammed) {
            *nak = "JAM";
            return DEV_NAK;
        }
        if (!left) {
            proto_event("EMPTY", 0);
            *nak = "EMPTY";
            return DEV_NAK;
        }
        PORTB |= _BV(PB2);
        job = 2;
        *busy_ms = DEAL_MS;
        return DEV_BUSY;
    }
    *nak = "UNKNOWN";
    return DEV_NAK;
}

uint8_t dev_finish(char *out, const char **nak) {
    uint8_t finished = job;
    job = 0;
    motors_off();
    if (finished == 1) {
        for (uint8_t i = 0; i < DECK; i++) shoe[i] = i;
        for (uint8_t i = DECK - 1; i > 0; i--) { /* Fisher-Yates */
            uint8_t j = (uint8_t)(next_random() % (uint32_t)(i + 1));
            uint8_t t = shoe[i];
            shoe[i] = shoe[j];
            shoe[j] = t;
        }
        left = DECK;
        dealt = 0;
        append_number(out, left);
        return DEV_OK;
    }
    if (finished == 2) {
        if (jam_seen || button_take()) {
            jam_seen = 0;
            jammed = 1;
            proto_event("JAM", 0);
            *nak = "JAM";
            return DEV_NAK;
        }
        uint8_t card = shoe[--left];
        dealt++;
        char name[4] = {ranks[card % 13], suits[card / 13], ' ', 0};
        strcat(out, " ");
        name[2] = 0;
        strcat(out, name);
        append_number(out, left);
        return DEV_OK;
    }
    *nak = "UNKNOWN";
    return DEV_NAK;
}

int main(void) { proto_run(); }
