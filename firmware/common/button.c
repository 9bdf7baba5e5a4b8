#include <avr/interrupt.h>
#include <avr/io.h>

#include "button.h"
#include "proto.h"

#define DEBOUNCE_MS 150

static volatile uint8_t pressed;

ISR(INT0_vect) { pressed = 1; }

void button_init(void) {
    DDRD &= (uint8_t)~_BV(PD2);
    PORTD |= _BV(PD2);  /* pull-up */
    EICRA = _BV(ISC01); /* falling edge */
    EIFR = _BV(INTF0);
    EIMSK = _BV(INT0);
}

uint8_t button_take(void) {
    static uint32_t last;
    if (!pressed) return 0;
    pressed = 0;
    uint32_t now = millis();
    if (last && now - last < DEBOUNCE_MS) return 0;
    last = now;
    return 1;
}
