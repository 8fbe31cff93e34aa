/*
 * isotime.c — timestamps as documents hold them: an ISO 8601 string with
 * its zone (what argo_expire and the date functions of reference.md §9
 * read), checked before PostgreSQL's input sees it.
 */
#include "postgres.h"

#include "utils/datetime.h"

#include "common/isotime.h"

/* n digits at s, their value into *v */
static bool
digits(const char **s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*s)++)
	{
		if (**s < '0' || **s > '9')
			return false;
		*v = *v * 10 + (**s - '0');
	}
	return true;
}

/*
 * Whether s is an ISO 8601 timestamp with its zone: YYYY-MM-DD, T or a
 * space, hh:mm[:ss[.fff…]], then Z or ±hh[[:]mm], every field in range
 * (so PostgreSQL's input never fails on it).
 */
bool
argo_iso_with_zone(const char *s)
{
	int			y,
				mo,
				d,
				h,
				mi,
				sec = 0,
				zh,
				zm = 0;

	if (!digits(&s, 4, &y) || *s++ != '-' || !digits(&s, 2, &mo) || *s++ != '-' ||
		!digits(&s, 2, &d) || (*s != 'T' && *s != 't' && *s != ' ') || !++s ||
		!digits(&s, 2, &h) || *s++ != ':' || !digits(&s, 2, &mi))
		return false;
	if (*s == ':' && (s++, !digits(&s, 2, &sec)))
		return false;
	if (*s == '.')
	{
		if (s[1] < '0' || s[1] > '9')
			return false;
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	}
	if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > day_tab[isleap(y)][mo - 1] || h > 23 ||
		mi > 59 || sec > 59)
		return false;
	if (*s == 'Z' || *s == 'z')
		return s[1] == '\0';
	if (*s != '+' && *s != '-')
		return false;
	s++;
	if (!digits(&s, 2, &zh) || zh > 15)
		return false;
	if (*s == ':')
		s++;
	if (*s != '\0' && (!digits(&s, 2, &zm) || zm > 59))
		return false;
	return *s == '\0';
}

