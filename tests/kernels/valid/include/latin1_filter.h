/* Filter constants. Copyright © 2012 Advanced Micro Devices, Inc. */
#ifndef LATIN1_FILTER_H
#define LATIN1_FILTER_H
#define MASK_WIDTH 5  /* taille du masque (éléments) */
#endif
