6real symmetric                                                          RSA     
             3             1             1             1
RSA                        2             2             3             0
(3I3)           (3I3)           (1P,3F6.1)          
  1  3  4
  1  2  2
   2.0   1.0   3.0
