#define BLUR_WEIGHT (1.0f / (2 * RADIUS + 1))
