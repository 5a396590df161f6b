/* fuzz: what every libFuzzer harness defines. */
#ifndef CF_FUZZ_H
#define CF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* One input: parse it as the harness's kind of untrusted input; never
 * crash, leak or read out of bounds. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
