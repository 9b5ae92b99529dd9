<?php
/**
 * The /api/v1 client: one request function, errors turned into words an editor can act on.
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Client {
	/** @var string */
	private $base;
	/** @var string */
	private $key;

	public function __construct( $base, $key ) {
		$this->base = untrailingslashit( (string) $base );
		$this->key  = (string) $key;
	}

	public static function from_options() {
		return new self( get_option( 'credence_service_url', '' ), get_option( 'credence_api_key', '' ) );
	}

	public function configured() {
		return '' !== $this->base && '' !== $this->key;
	}

	public function base() {
		return $this->base;
	}

	/** Which key this is, without the key itself (for caching an answer about it). */
	public function key_hash() {
		return hash( 'sha256', $this->key );
	}

	/**
	 * @return array|WP_Error The decoded body on a 2xx; a WP_Error whose message is a sentence otherwise.
	 */
	public function request( $method, $path, $body = null, $query = array(), $timeout = 8 ) {
		if ( '' === $this->base ) {
			return new WP_Error( 'credence_not_configured', __( 'Credence is not connected yet: enter its address and an API key under Settings → Credence.', 'credence' ) );
		}
		$url  = add_query_arg( array_map( 'rawurlencode', $query ), $this->base . '/api/v1' . $path );
		$args = array(
			'method'  => $method,
			'timeout' => $timeout,
			'headers' => array( 'Accept' => 'application/json' ),
		);
		if ( '' !== $this->key ) {
			$args['headers']['X-API-Key'] = $this->key;
		}
		if ( null !== $body ) {
			$args['headers']['Content-Type'] = 'application/json';
			$args['body']                    = wp_json_encode( $body );
		}
		$res = wp_remote_request( $url, $args );
		if ( is_wp_error( $res ) ) {
			return new WP_Error( 'credence_unreachable', __( 'Credence could not be reached; the plugin will try again in a few minutes.', 'credence' ), array( 'retry' => true ) );
		}
		$status  = (int) wp_remote_retrieve_response_code( $res );
		$decoded = json_decode( (string) wp_remote_retrieve_body( $res ), true );
		if ( $status >= 200 && $status < 300 ) {
			return is_array( $decoded ) ? $decoded : array();
		}
		return self::error_for( $status, is_array( $decoded ) ? $decoded : array() );
	}

	/** A failed answer in words; 429 and 5xx are worth retrying, the rest are not. */
	public static function error_for( $status, array $body ) {
		$message = isset( $body['error']['message'] ) ? (string) $body['error']['message'] : '';
		switch ( true ) {
			case 401 === $status:
				$text = __( 'Credence refused the API key: it is wrong, revoked or expired. Enter a valid publisher key under Settings → Credence.', 'credence' );
				break;
			case 403 === $status:
				/* translators: %s: the service's explanation */
				$text = sprintf( __( 'Credence does not allow this key to do that: %s', 'credence' ), $message );
				break;
			case 429 === $status:
				$text = __( 'Credence asked us to slow down; the plugin will try again shortly.', 'credence' );
				break;
			case $status >= 500:
				$text = __( 'Credence is having trouble right now; the plugin will try again in a few minutes.', 'credence' );
				break;
			default:
				/* translators: %s: the service's explanation */
				$text = sprintf( __( 'Credence did not accept the request: %s', 'credence' ), $message );
		}
		return new WP_Error( 'credence_http_' . $status, $text, array( 'status' => $status, 'retry' => 429 === $status || $status >= 500 ) );
	}
}
