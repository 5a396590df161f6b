/* What the fuzz harnesses link in place of the agent's data plane: the
 * request decoders they test call none of it at run time, but the
 * objects they come in refer to it. */
#include "clock.h"

double stream_now(void);

double
stream_now(void)
{
	return clock_mono();
}
