<?php
/**
 * Checks a Credence webhook delivery as docs/webhooks.md's receiver does: HMAC-SHA256 keyed with the whole secret
 * over "<timestamp>.<raw body>", compared in constant time against X-Service-Signature (and, for the day after a
 * rotation, X-Service-Signature-Previous), refusing a timestamp more than five minutes from our clock.
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Signature {
	const TOLERANCE = 300;

	/**
	 * @param string      $secret    The endpoint's signing secret (whsec_…).
	 * @param string      $body      The raw request body, as received.
	 * @param string      $timestamp X-Service-Timestamp.
	 * @param string[]    $headers   The values of X-Service-Signature and X-Service-Signature-Previous.
	 * @param int         $now       Unix time now.
	 * @return string 'ok', 'stale' or 'bad'
	 */
	public static function check( $secret, $body, $timestamp, array $headers, $now ) {
		if ( '' === (string) $secret || ! preg_match( '/^\d{1,12}$/', (string) $timestamp ) ) {
			return 'bad';
		}
		$expected = hash_hmac( 'sha256', $timestamp . '.' . $body, $secret );
		$matched  = false;
		foreach ( $headers as $header ) {
			$header = (string) $header;
			if ( 0 === strpos( $header, 'sha256=' ) && hash_equals( $expected, strtolower( substr( $header, 7 ) ) ) ) {
				$matched = true;
			}
		}
		if ( ! $matched ) {
			return 'bad';
		}
		return abs( $now - (int) $timestamp ) <= self::TOLERANCE ? 'ok' : 'stale';
	}

	/** The header a sender writes, for tests and for a site checking its own setup. */
	public static function sign( $secret, $body, $timestamp ) {
		return 'sha256=' . hash_hmac( 'sha256', $timestamp . '.' . $body, $secret );
	}
}
