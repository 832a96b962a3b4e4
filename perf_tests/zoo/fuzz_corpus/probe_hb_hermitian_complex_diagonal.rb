5hermitian                                                               CHA     
             4             1             1             2
CHA                        2             2             2             0
(3I3)           (3I3)           (2F6.1)             
  1  3  3
  1  2
   2.0   0.5
   1.0   1.0
