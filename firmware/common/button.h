/* The one input pin: PD2 (Arduino D2, INT0) to ground, internal pull-up.
 * The LED controller uses it as the dealer's button, the shuffler as its jam sensor. */
#ifndef BUTTON_H
#define BUTTON_H
#include <stdint.h>
void button_init(void);
uint8_t button_take(void); /* 1 once per press (falling edge), debounced */
#endif
