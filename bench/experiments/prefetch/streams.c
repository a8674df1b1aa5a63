/* streams.c - C model of reduction's reads per work-group; see README.md. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double tcpu(void){ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
float loc[256] __attribute__((aligned(64)));
// mode 0: interleaved two streams (lanes); 1: sequential; 2: interleaved + prefetch ahead D blocks; 3: + fake tree work
__attribute__((noinline)) float run(const float*in,size_t groups,int mode,int dist,int work){
  float acc=0;
  for(size_t g=0;g<groups;g++){
    const float*b=in+g*512;
    if(mode==2){ for(int k=0;k<2048;k+=64) _mm_prefetch((const char*)(b+dist*512)+k,_MM_HINT_T0);}
    for(int s=0;s<32;s++){
      __m256 x,y;
      if(mode==1){ x=_mm256_loadu_ps(b+16*s); y=_mm256_loadu_ps(b+16*s+8);} else { x=_mm256_loadu_ps(b+8*s); y=_mm256_loadu_ps(b+256+8*s);} 
      _mm256_store_ps(loc+8*s,_mm256_add_ps(x,y));
    }
    for(int w=0;w<work;w++){ for(int s=0;s<16;s++){ __m256 a=_mm256_load_ps(loc+8*s),c=_mm256_load_ps(loc+128+8*s); _mm256_store_ps(loc+8*s,_mm256_add_ps(a,c)); __asm__ volatile(""::"r"(loc):"memory");} }
    acc+=loc[0];
  }
  return acc;
}
int main(int argc,char**argv){ size_t groups=32768; int mode=atoi(argv[1]),dist=argc>2?atoi(argv[2]):4,work=argc>3?atoi(argv[3]):0; float*in=aligned_alloc(64,groups*2048); for(size_t i=0;i<groups*512;i++)in[i]=i%7;
 double best[11]; float a=0; for(int r=0;r<11;r++){double t0=tcpu(); a+=run(in,groups,mode,dist,work); best[r]=tcpu()-t0;}
 for(int i=0;i<11;i++)for(int j=i+1;j<11;j++)if(best[j]<best[i]){double t=best[i];best[i]=best[j];best[j]=t;}
 printf("mode %d dist %d work %d: %.2f ms (%g)\n",mode,dist,work,best[5],a); }
