"""Instructions per work-group by part: sums the counts of a
callgrind_by_address.py listing over address ranges.

    python3 counts_by_range.py LISTING WORK_GROUPS NAME=LO-HI ...

(addresses in hex, as objdump prints them; what no range covers is `other`).
"""
import sys
prof=sys.argv[1]; wg=int(sys.argv[2]); rs=[(a.split('=')[0],int(a.split('=')[1].split('-')[0],16),int(a.split('=')[1].split('-')[1],16)) for a in sys.argv[3:]]
tot={n:0 for n,_,_ in rs}; other=0; all_=0
for l in open(prof):
    p=l.split()
    if len(p)<2: continue
    c=int(p[0]); a=int(p[1].rstrip(':'),16); all_+=c
    for n,lo,hi in rs:
        if lo<=a<=hi: tot[n]+=c; break
    else: other+=c
for n in tot: print(f"{n:20s} {tot[n]/wg:10.1f}")
print(f"{'other':20s} {other/wg:10.1f}"); print(f"{'total':20s} {all_/wg:10.1f}")
