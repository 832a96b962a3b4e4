6pattern                                                                 PUA     
             2             1             1             0
PUA                        2             2             3             0
(3I3)           (3I3)           
  1  3  4
  1  2  2
