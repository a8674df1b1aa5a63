/* The weight of one tap of the box blur: every tap counts the same. */
#define BLUR_WEIGHT (1.0f / (2 * RADIUS + 1))
