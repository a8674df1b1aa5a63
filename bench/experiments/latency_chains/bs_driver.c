/* bs_driver.c - times the `lanes build` object of bench/kernels/black_scholes.cl
 * (or, with -DTWO, of two_options.cl) on 1M options; see README.md. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef TWO
#include "two.h"
#else
#include "bs.h"
#endif
static double tcpu(void){ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc,char**argv){ int n=1<<20; int reps=argc>1?atoi(argv[1]):11;
 float*c=aligned_alloc(64,n*4),*p=aligned_alloc(64,n*4),*S=aligned_alloc(64,n*4),*X=aligned_alloc(64,n*4),*T=aligned_alloc(64,n*4);
 for(int i=0;i<n;i++){S[i]=5+(i%1000)*0.03f;X[i]=1+(i%777)*0.1f;T[i]=0.25f+(i%100)*0.1f;}
 lanes_range r={1,{0,0,0},{n,1,1},{256,1,1}}; double t[64];
 for(int k=0;k<reps;k++){double t0=tcpu();
#ifdef TWO
  lanes_range r2={1,{0,0,0},{n/2,1,1},{256,1,1}}; black_scholes2_groups(c,p,S,X,T,0.02f,0.3f,n,&r2,0,n/512);
#else
  black_scholes_groups(c,p,S,X,T,0.02f,0.3f,n,&r,0,n/256);
#endif
  t[k]=tcpu()-t0;}
 for(int i=0;i<reps;i++)for(int j=i+1;j<reps;j++)if(t[j]<t[i]){double x=t[i];t[i]=t[j];t[j]=x;}
 printf("%.3f ms (%f)\n",t[reps/2],c[12345]); return 0;}
