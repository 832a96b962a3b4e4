5Test matrix for the Harwell-Boeing reader                               TESTCUA 
             5             1             1             3             0
CUA                        3             3             5             0
(4I5)           (5I5)           (4E11.4)            (4E11.4)            
    1    3    4    6
    1    1    2    1    3
1.7000E+308 2.0000E+001.7000E+308-1.0000E+00
 4.0000E+00 0.0000E+00 0.0000E+00-3.5000E+00
 6.0000E+00 2.5000D-01
