// scale.h - the factor transpose.cl applies to every element.
#ifndef SCALE_H
#define SCALE_H

#define SCALE 1.0f

#endif
